package selecttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/parser"
	"go/scanner"
	"go/token"
	"hash"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// The Go package graph only changes when a file's package clause, imports,
// build constraints or embed patterns change, or files come and go. The
// cache key hashes exactly that (plus go.mod and go.sum), so edits to
// function bodies — the usual change — reuse the graph. It is kept in
// memory and under config.Home()/cache/selecttest.
var goCache = struct {
	sync.Mutex
	graphs map[string]*goGraph
}{graphs: map[string]*goGraph{}}

// GoGraphStats reports how the last graph was obtained, for benchmarks.
type GoGraphStats struct {
	// Source is "memory", "disk" or "go list".
	Source   string
	Packages int
}

var lastGoStats GoGraphStats

// LastGoGraphStats returns how the most recent Go selection got its graph.
func LastGoGraphStats() GoGraphStats {
	goCache.Lock()
	defer goCache.Unlock()
	return lastGoStats
}

// ResetGoCache forgets the in-memory graphs and the memos of parsed Go and
// Python files (benchmarks measure cold runs).
func ResetGoCache() {
	goCache.Lock()
	defer goCache.Unlock()
	goCache.graphs = map[string]*goGraph{}
	headerMemo.reset()
	scanMemo.reset()
	pyMemo.reset()
	pyUnitMemo.reset()
}

// goGraphFor returns the module graph of dir, from cache when the key
// matches.
func goGraphFor(ctx context.Context, r *run.Runner, dir string) (*goGraph, error) {
	key := goGraphKey(dir)
	goCache.Lock()
	g := goCache.graphs[key]
	goCache.Unlock()
	if g != nil {
		setStats("memory", g)
		return g, nil
	}
	file := filepath.Join(config.Home(), "cache", "selecttest", "go-"+key+".json")
	if data, err := os.ReadFile(file); err == nil {
		g = new(goGraph)
		if json.Unmarshal(data, g) == nil && g.Module != "" {
			remember(key, g)
			setStats("disk", g)
			return g, nil
		}
	}
	g, err := loadGoGraph(ctx, r, dir)
	if err != nil {
		return nil, err
	}
	remember(key, g)
	setStats("go list", g)
	if data, err := json.Marshal(g); err == nil && os.MkdirAll(filepath.Dir(file), 0o755) == nil {
		tmp := file + ".tmp" + strconv.Itoa(os.Getpid())
		if os.WriteFile(tmp, data, 0o644) == nil {
			_ = os.Rename(tmp, file)
		}
		pruneCache(filepath.Dir(file), maxCachedGraphs)
	}
	return g, nil
}

// maxCachedGraphs bounds the graphs kept on disk; the oldest go first.
const maxCachedGraphs = 64

func pruneCache(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= keep {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "go-") {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	for _, f := range files[min(keep, len(files)):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}

func remember(key string, g *goGraph) {
	goCache.Lock()
	defer goCache.Unlock()
	goCache.graphs[key] = g
}

func setStats(src string, g *goGraph) {
	goCache.Lock()
	defer goCache.Unlock()
	lastGoStats = GoGraphStats{Source: src, Packages: len(g.Packages)}
}

// goGraphFormat changes when goGraph does, so old cache files are not read.
const goGraphFormat = "go-graph-v4"

// goGraphKey hashes what the package graph depends on.
func goGraphKey(dir string) string {
	h := sha256.New()
	abs, _ := filepath.Abs(dir)
	fmtKey(h, goGraphFormat, abs, runtime.Version(), os.Getenv("GOFLAGS"), os.Getenv("GOOS"),
		os.Getenv("GOARCH"), os.Getenv("CGO_ENABLED"), os.Getenv("GOWORK"))
	for _, name := range []string{"go.mod", "go.sum", "go.work"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		fmtKey(h, name, string(data))
	}
	// The headers of unchanged files are remembered across processes.
	sum := sha256.Sum256([]byte(abs))
	memoFile := filepath.Join(config.Home(), "cache", "selecttest", "headers-"+hex.EncodeToString(sum[:8])+".json")
	headerMemo.load(memoFile)
	defer headerMemo.save(memoFile)
	walkFiles(dir, func(rel string) bool {
		base := path.Base(rel)
		if base == "testdata" || base == "vendor" || strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") {
			return false
		}
		return !fileExists(filepath.Join(dir, filepath.FromSlash(rel), "go.mod"))
	}, func(rel string) bool {
		fmtKey(h, "file", rel)
		if strings.HasSuffix(rel, ".go") {
			file := filepath.Join(dir, filepath.FromSlash(rel))
			fmtKey(h, headerMemo.get(file, "", func() string {
				sum := sha256.Sum256([]byte(goHeader(file)))
				return hex.EncodeToString(sum[:])
			}))
		}
		return true
	})
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func fmtKey(h hash.Hash, parts ...string) {
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
}

// goHeader is the part of a Go file that decides the graph: everything up
// to the end of its imports (package clause and build constraints
// included) and its //go:embed lines. A file that does not parse is used
// whole.
func goHeader(file string) string {
	src, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if err != nil {
		return string(src)
	}
	end := int(f.Name.End()) - 1
	for _, d := range f.Decls {
		end = max(end, int(d.End())-1)
	}
	head := string(src[:min(end, len(src))])
	for _, line := range strings.Split(string(src[min(end, len(src)):]), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "//go:embed") {
			head += "\n" + line
		}
	}
	return head
}

// goTestScan is what the test sources of each package show beyond their
// imports.
type goTestScan struct {
	// readers maps a test package to the module paths its tests name
	// through relative paths that leave the package ("../x/testdata").
	readers map[string][]string
	// buildsGo marks test packages whose sources run the go command
	// (exec.Command("go", "build", ...), testenv.GoToolPath).
	buildsGo map[string]bool
}

// scanGoTests reads every test file of the module once.
func scanGoTests(dir string, g *goGraph) goTestScan {
	scan := goTestScan{readers: map[string][]string{}, buildsGo: map[string]bool{}}
	for _, p := range g.Packages {
		if p.TestFiles == 0 {
			continue
		}
		set := map[string]bool{}
		for _, f := range p.Files {
			if !strings.HasSuffix(f, "_test.go") {
				continue
			}
			file := filepath.Join(dir, filepath.FromSlash(p.Rel), f)
			got := scanMemo.get(file, p.Rel, func() testScan {
				reads, builds := scanGoTestFile(file, p.Rel)
				return testScan{reads, builds}
			})
			reads, builds := got.reads, got.buildsGo
			for _, d := range reads {
				set[d] = true
			}
			if builds {
				scan.buildsGo[p.ImportPath] = true
			}
		}
		if len(set) > 0 {
			scan.readers[p.ImportPath] = sortedKeys(set)
		}
	}
	return scan
}

// scanGoTestFile scans a Go test file's tokens. It returns the paths its
// string literals name that climb out of the package folder pkgRel,
// relative to the module root, and whether it runs the go command.
//
// Literals that are arguments of one call are joined, so
// filepath.Join("..", "d", "testdata") names d/testdata; a bare ".." that
// stands alone, as in os.ReadDir(".."), stands for the whole parent folder.
// A bare ".." that is concatenated (".." + string(filepath.Separator)) builds
// a string rather than naming a folder, and names nothing.
func scanGoTestFile(file, pkgRel string) (out []string, buildsGo bool) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	type item struct {
		tok token.Token
		lit string
	}
	var toks []item
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile(file, -1, len(src)), src, nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		toks = append(toks, item{tok, lit})
	}
	unquote := func(i int) (string, bool) {
		if i >= len(toks) || toks[i].tok != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(toks[i].lit)
		return v, err == nil
	}
	for i, t := range toks {
		if t.tok == token.IDENT && (t.lit == "GoToolPath" || t.lit == "GoTool") {
			buildsGo = true
		}
		v, ok := unquote(i)
		if !ok {
			continue
		}
		if v == "go" || strings.HasPrefix(v, "go build") || strings.HasPrefix(v, "go run") ||
			strings.HasPrefix(v, "go install") {
			buildsGo = true
		}
		if !(v == ".." || strings.HasPrefix(v, "../")) {
			continue
		}
		if v == ".." && i+1 < len(toks) && toks[i+1].tok == token.ADD {
			continue
		}
		// Join the string arguments that follow in the same call.
		for j := i + 1; j+1 < len(toks) && toks[j].tok == token.COMMA; j += 2 {
			next, ok := unquote(j + 1)
			if !ok || strings.HasPrefix(next, "/") {
				break
			}
			v = path.Join(v, next)
		}
		if i := strings.IndexAny(v, "*?["); i >= 0 {
			v = path.Dir(v[:i] + "x")
		}
		target := path.Join(pkgRel, v)
		if target == ".." || strings.HasPrefix(target, "../") {
			continue
		}
		out = append(out, target)
	}
	return out, buildsGo
}
