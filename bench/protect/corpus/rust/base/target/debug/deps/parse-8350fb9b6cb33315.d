/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/parse-8350fb9b6cb33315.d: tests/parse.rs tests/common/mod.rs

/work/wt/lead/bench/protect/corpus/rust/base/target/debug/deps/parse-8350fb9b6cb33315: tests/parse.rs tests/common/mod.rs

tests/parse.rs:
tests/common/mod.rs:
