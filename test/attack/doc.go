// Package attack is the sandbox's attack suite: each test runs a hostile
// command line through run.Runner with the sandbox, as the model's bash
// call and as a gate check, and then inspects the host (files unchanged,
// processes gone, listeners never reached).
package attack
