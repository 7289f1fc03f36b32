package policy

import (
	"fmt"
	"strings"
)

// readOnlyCommands are the programs a read-only agent (the oracle) may
// run: they read files, the repository or the environment and write
// nothing but their output. The read-only sandbox is the boundary; this
// list turns a write attempt into a clear refusal instead of an EROFS.
var readOnlyCommands = map[string]bool{
	"cat": true, "head": true, "tail": true, "ls": true, "tree": true, "stat": true,
	"file": true, "wc": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
	"find": true, "fd": true, "diff": true, "cmp": true, "comm": true, "sort": true, "uniq": true,
	"cut": true, "tr": true, "nl": true, "column": true, "jq": true,
	"basename": true, "dirname": true, "realpath": true, "readlink": true, "pwd": true,
	"echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true,
	"which": true, "type": true, "date": true, "uname": true, "du": true, "df": true,
	"sha256sum": true, "sha1sum": true, "md5sum": true, "od": true, "hexdump": true,
	"strings": true, "git": true, "go": true, "cd": true,
}

// readOnlyGit are the git subcommands that only read.
var readOnlyGit = map[string]bool{
	"log": true, "show": true, "diff": true, "status": true, "blame": true, "grep": true,
	"ls-files": true, "ls-tree": true, "rev-parse": true, "cat-file": true, "shortlog": true,
	"describe": true,
}

// readOnlyGo are the go subcommands that only read (go vet and go test
// build into the cache, which the read-only sandbox does not let them write).
var readOnlyGo = map[string]bool{"list": true, "doc": true, "version": true, "env": true}

// ReadOnlyCommand reports whether a bash command line only reads; when
// not, why names the command that would write (or what hides it).
func ReadOnlyCommand(line string) (ok bool, why string) {
	sl, err := parseLine(line)
	if err != nil {
		return false, "the command line cannot be parsed (" + err.Error() + ")"
	}
	if len(sl.opaque) > 0 {
		return false, sl.opaque[0] + " could write or run anything"
	}
	for _, sc := range sl.cmds {
		if why := readOnlyArgs(sc.args); why != "" {
			return false, why
		}
	}
	return true, ""
}

// readOnlyArgs names why one simple command may write, or "".
func readOnlyArgs(args []string) string {
	name := baseName(args[0])
	if !readOnlyCommands[name] {
		return fmt.Sprintf("%q is not a read-only command", name)
	}
	sub := ""
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	switch name {
	case "git":
		if !readOnlyGit[sub] {
			return fmt.Sprintf("git %s may write", sub)
		}
	case "go":
		if !readOnlyGo[sub] {
			return fmt.Sprintf("go %s builds or writes", sub)
		}
	}
	for _, a := range args[1:] {
		switch {
		case name == "find" && (a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok") || strings.HasPrefix(a, "-fprint") || a == "-fls"):
			return "find " + a + " writes or runs commands"
		case (name == "sort" || name == "tree") && (strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "--output")):
			return name + " " + a + " writes a file"
		case name == "git" && (a == "-O" || strings.HasPrefix(a, "--open-files-in-pager")):
			return "git " + a + " runs a pager"
		case (name == "git" || name == "diff") && strings.HasPrefix(a, "--output"):
			return name + " " + a + " writes a file"
		case name == "fd" && (a == "-x" || a == "-X" || strings.HasPrefix(a, "--exec")):
			return "fd " + a + " runs commands"
		}
	}
	return ""
}
