/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/calc-c6626fb655a8d231.d: src/lib.rs src/parser.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/calc-c6626fb655a8d231: src/lib.rs src/parser.rs

src/lib.rs:
src/parser.rs:
