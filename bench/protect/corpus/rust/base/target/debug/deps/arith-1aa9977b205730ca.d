/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/arith-1aa9977b205730ca.d: tests/arith.rs tests/arith/sums.rs tests/arith/quotients.rs tests/common/mod.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/arith-1aa9977b205730ca: tests/arith.rs tests/arith/sums.rs tests/arith/quotients.rs tests/common/mod.rs

tests/arith.rs:
tests/arith/sums.rs:
tests/arith/quotients.rs:
tests/common/mod.rs:
