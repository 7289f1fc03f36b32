/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/integration-9b1013df2ff383a5.d: tests/integration.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/integration-9b1013df2ff383a5: tests/integration.rs

tests/integration.rs:
