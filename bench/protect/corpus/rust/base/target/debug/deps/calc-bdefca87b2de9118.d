/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/calc-bdefca87b2de9118.d: src/lib.rs src/parser.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/libcalc-bdefca87b2de9118.rlib: src/lib.rs src/parser.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/libcalc-bdefca87b2de9118.rmeta: src/lib.rs src/parser.rs

src/lib.rs:
src/parser.rs:
