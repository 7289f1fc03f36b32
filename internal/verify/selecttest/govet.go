package selecttest

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func init() { analyzers[detect.GoVet] = selectGoVet }

// selectGoVet narrows `go vet ./...` to the packages a change can give a
// new finding: the changed packages (test files included, vet reads them)
// and every package that imports one of them, directly or not, from its
// code or its tests, since vet's facts (a printf wrapper, say) flow from a
// package to its importers. A package whose _test.go files alone changed
// has no importer to look at again. The usual rules force the whole module.
func selectGoVet(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	g, full, err := goGraphToNarrow(ctx, r, in)
	if err != nil || full.Full {
		return full, err
	}
	changed, code, reason := vetChanged(g, in)
	if !reason.IsZero() {
		return fullSelection(in.Check, reason), nil
	}
	if len(changed) == 0 {
		return fullSelection(in.Check, scope.Because(scope.NoPackageChanged)), nil
	}
	var targets []string
	for _, p := range g.Packages {
		// A change to a package's _test.go files alone gives no other
		// package a fact: no other package links its tests.
		if changed[p.ImportPath] || anyIn(p.Deps, code) || anyIn(p.TestDeps, code) {
			targets = append(targets, goTarget(p.Rel))
		}
	}
	if len(targets) == len(g.Packages) {
		return fullSelection(in.Check, scope.For(scope.ReachesAll, "package")), nil
	}
	sort.Strings(targets)
	args, _ := runner.For(in.Check.Runner).NarrowTargets(in.Check.Dir, in.Check.Args, targets)
	return narrowed(args, targets, nil), nil
}

// vetChanged maps the changed files to the packages vet must look at
// again. A non-empty reason means the whole module is vetted.
func vetChanged(g *goGraph, in Input) (changed, code map[string]bool, _ scope.Reason) {
	byDir := map[string]*goPkg{}
	for _, p := range g.Packages {
		byDir[p.Rel] = p
	}
	added := toSet(in.Added)
	changed, code = map[string]bool{}, map[string]bool{}
	for _, f := range cleanChanged(in.Changed) {
		if inNestedModule(in.Check.Dir, f) {
			continue
		}
		p := byDir[path.Dir(f)]
		isGo := strings.HasSuffix(f, ".go")
		switch {
		case p != nil && (isGo || contains(p.Files, path.Base(f))):
			changed[p.ImportPath] = true
			if !strings.HasSuffix(f, "_test.go") {
				code[p.ImportPath] = true
			}
		case isGo && added[f]:
			// A new file outside any package (a program behind a build
			// tag) is in nothing vet looks at.
		case testdataOwner(byDir, f) != nil:
			// Vet looks at no byte of test data; its package is the
			// cheapest thing to vet (a check runs something).
			changed[testdataOwner(byDir, f).ImportPath] = true
		case isGo:
			return nil, nil, scope.Because(scope.InNoPackage, f)
		default:
			return nil, nil, scope.For(scope.NotCode, "Go", f)
		}
	}
	return changed, code, scope.Reason{}
}
