package detect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
)

// toxRun is what the test command of tox.ini's [testenv] runs that a plain
// `python -m pytest` would leave out.
type toxRun struct {
	// unittest is set when the project runs its tests with unittest:
	// pytest ignores the load_tests functions of its test modules, and
	// with them the doctests they add (more-itertools: 165 of 901 tests).
	unittest bool
	// pytestArgs are the doctest flags the project's pytest run adds and
	// the folders they collect from (boltons: --doctest-modules boltons
	// tests), as paths in the project.
	pytestArgs []string
}

// toxTests reads tox.ini's [testenv] commands for the first one that runs
// pytest or unittest. Only what can be read for certain counts: a command
// with quotes, a substitution other than the project folder, the site
// packages' copy of a folder the project has, or {posargs}, or an option
// whose value may be the word after it, lifts no paths.
func toxTests(root string) (toxRun, bool) {
	data, err := os.ReadFile(filepath.Join(root, "tox.ini"))
	if err != nil {
		return toxRun{}, false
	}
	cmds, changedir := toxCommands(string(data))
	runs := 0
	for _, cmd := range cmds {
		if mod, _, ok := pythonModule(strings.Fields(strings.TrimPrefix(cmd, "- "))); ok && (mod == "pytest" || mod == "unittest") {
			runs++
		}
	}
	if runs != 1 {
		return toxRun{}, false // two test runs: no one check is both
	}
	for _, cmd := range cmds {
		mod, rest, ok := pythonModule(strings.Fields(strings.TrimPrefix(cmd, "- ")))
		if !ok || mod != "pytest" && mod != "unittest" {
			continue
		}
		if strings.ContainsAny(cmd, "\"'\\") {
			return toxRun{}, false
		}
		switch mod {
		case "unittest":
			// Only a plain run in the project's folder, which
			// `-m unittest` is: discover with its own folder or
			// pattern, or another folder, finds other files.
			if changedir {
				return toxRun{}, false
			}
			for _, a := range rest {
				if a != "-v" && a != "--verbose" && a != "-b" && a != "--buffer" && !strings.HasPrefix(a, "{posargs") {
					return toxRun{}, false
				}
			}
			return toxRun{unittest: true}, true
		case "pytest":
			args, ok := doctestArgs(root, rest, changedir)
			return toxRun{pytestArgs: args}, ok && len(args) > 0
		}
	}
	return toxRun{}, false
}

// toxCommands returns the commands of [testenv] (one a line: an indented
// line is a command of its own) and whether it sets changedir.
func toxCommands(s string) (cmds []string, changedir bool) {
	section, key := "", ""
	for _, raw := range strings.Split(s, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trim := strings.TrimSpace(line)
		switch {
		case trim == "" || strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, ";"):
		case strings.HasPrefix(trim, "[") && strings.HasSuffix(trim, "]"):
			section, key = strings.TrimSpace(trim[1:len(trim)-1]), ""
		case section != "testenv":
		case line[0] == ' ' || line[0] == '\t':
			if key == "commands" {
				cmds = append(cmds, trim)
			}
		default:
			k, v, ok := strings.Cut(trim, "=")
			key = ""
			if !ok {
				continue
			}
			key = strings.TrimSpace(k)
			if key == "changedir" {
				changedir = true
			}
			if v = strings.TrimSpace(v); key == "commands" && v != "" {
				cmds = append(cmds, v)
			}
		}
	}
	return cmds, changedir
}

// pythonModule reads a command that runs a Python test module: pytest or
// py.test, `python -m M`, `{envpython} -m M`, `coverage run … -m M`.
func pythonModule(w []string) (mod string, rest []string, ok bool) {
	if len(w) == 0 {
		return "", nil, false
	}
	switch base := filepath.Base(w[0]); {
	case base == "pytest" || base == "py.test":
		return "pytest", w[1:], true
	case base == "coverage" && len(w) > 1 && w[1] == "run":
		i := slices.Index(w, "-m")
		if i < 0 || i+1 >= len(w) {
			return "", nil, false
		}
		return w[i+1], w[i+2:], true
	case strings.HasPrefix(base, "python") || w[0] == "{envpython}" || w[0] == "{env_python}":
		if len(w) > 2 && w[1] == "-m" {
			return w[2], w[3:], true
		}
	}
	return "", nil, false
}

// doctestArgs keeps, of a pytest command's arguments, the doctest flags
// and the paths they collect from, mapped into the project; ok is false
// when a path cannot be read for certain, or when the command runs in
// another folder (changedir) and names none.
func doctestArgs(root string, rest []string, changedir bool) (args []string, ok bool) {
	var flags, paths []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--doctest-modules" || strings.HasPrefix(a, "--doctest-glob="):
			flags = append(flags, a)
		case a == "--doctest-glob" && i+1 < len(rest):
			flags = append(flags, a+"="+rest[i+1])
			i++
		case strings.HasPrefix(a, "{posargs"):
		case strings.HasPrefix(a, "-"):
			if !reportOnlyOpt(a) || !strings.Contains(a, "=") && i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") {
				// It may change what is collected (--ignore=,
				// --import-mode=), or take the next word for its
				// value: cannot tell.
				return nil, false
			}
		default:
			p, ok := toxPath(root, a)
			if !ok {
				return nil, false
			}
			paths = append(paths, p)
		}
	}
	if len(flags) == 0 || changedir && len(paths) == 0 {
		return nil, false
	}
	return append(flags, paths...), true
}

// reportOnlyOpt reports a pytest option that changes only what the run
// prints or where it keeps temporary files, not which tests it collects:
// the check can leave it out.
func reportOnlyOpt(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "-v", "-vv", "-vvv", "-q", "-qq", "--verbose", "--quiet", "-l", "--showlocals", "-s", "--capture", "--tb",
		"--durations", "--color", "--basetemp", "--strict-markers", "--strict-config", "--cov", "--cov-report",
		"--cov-append", "--cov-branch", "--cov-config", "--no-cov-on-fail", "--junitxml", "--junit-xml":
		return true
	}
	return len(name) > 2 && strings.HasPrefix(name, "-r") && !strings.HasPrefix(name, "--")
}

// toxPath maps a tox command's path into the project: {toxinidir}/tests
// is tests, {envsitepackagesdir}/pkg the project's pkg (or src/pkg).
func toxPath(root, p string) (string, bool) {
	for _, dir := range []string{"{toxinidir}", "{tox_root}"} {
		if p == dir {
			return ".", true
		}
		if rel, ok := strings.CutPrefix(p, dir+"/"); ok {
			p = rel
		}
	}
	for _, site := range []string{"{envsitepackagesdir}/", "{env_site_packages_dir}/"} {
		if rel, ok := strings.CutPrefix(p, site); ok {
			if !exists(filepath.Join(root, rel)) && exists(filepath.Join(root, "src", rel)) {
				rel = "src/" + rel
			}
			p = rel
		}
	}
	if strings.Contains(p, "{") || filepath.IsAbs(p) || strings.HasPrefix(filepath.Clean(p), "..") || !exists(filepath.Join(root, p)) {
		return "", false
	}
	return filepath.ToSlash(filepath.Clean(p)), true
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// withTox makes chk, the pytest run chosen for root, run what tox.ini's
// test command runs beyond it: unittest's run when the project runs its
// tests with unittest, or pytest with the doctest flags and folders.
func withTox(root string, chk Check) Check {
	if chk.Runner != Pytest {
		return chk
	}
	tr, ok := toxTests(root)
	switch {
	case !ok:
		return chk
	case tr.unittest:
		u := pythonCmd(root, chk.Args[0], Unittest)
		u.Note = chk.Note
		return u
	}
	chk.Args = append(slices.Clone(chk.Args), tr.pytestArgs...)
	chk.Command += " " + shell.Join(tr.pytestArgs)
	return chk
}
