package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v4"

	"github.com/chanto-dev/chanto/internal/ini"
)

// coverageFloors returns the coverage thresholds a Python config file sets,
// by name: coverage.py's fail_under ([tool.coverage.report] in
// pyproject.toml, [coverage:report] in setup.cfg and tox.ini, [report] in
// .coveragerc) and pytest-cov's --cov-fail-under in addopts.
func coverageFloors(p string, src []byte) map[string]float64 {
	out := map[string]float64{}
	if src == nil {
		return out
	}
	base := path.Base(p)
	if base == "pyproject.toml" {
		var doc struct {
			Tool struct {
				Coverage struct {
					Report map[string]any `toml:"report"`
				} `toml:"coverage"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(src), &doc); err == nil {
			if v, ok := doc.Tool.Coverage.Report["fail_under"]; ok {
				if n, err := strconv.ParseFloat(fmt.Sprint(v), 64); err == nil {
					out["fail_under"] = n
				}
			}
		}
	} else {
		sections := ini.Parse(string(src))
		for _, sec := range []string{"coverage:report", "report"} {
			if base != ".coveragerc" && sec == "report" {
				continue
			}
			if v, ok := sections[sec]["fail_under"]; ok {
				if n, err := strconv.ParseFloat(v, 64); err == nil {
					out["fail_under"] = n
				}
			}
		}
	}
	if kv := pytestOptions(p, src); kv != nil {
		pa := parseArgs("pytest", strings.Fields(kv["addopts"]))
		if n, ok := threshold(pa); ok {
			out["--cov-fail-under"] = n
		}
	}
	return out
}

func checkCoverage(p string, b, a []byte) []Violation {
	return lowerFloors(p, coverageFloors(p, b), coverageFloors(p, a), a)
}

// lowerFloors reports thresholds of base that cur lowered or removed.
func lowerFloors(p string, base, cur map[string]float64, src []byte) []Violation {
	var out []Violation
	keys := make([]string, 0, len(base))
	for k := range base {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		old := base[k]
		now, ok := cur[k]
		if ok && now >= old {
			continue
		}
		after := "removed"
		if ok {
			after = strconv.FormatFloat(now, 'g', -1, 64)
		}
		leaf := k[strings.LastIndexByte(k, '.')+1:]
		out = append(out, harnessViolation(p, fmt.Sprintf("coverage threshold %s lowered from %g to %s", k, old, after), lineOf(src, leaf),
			fmt.Sprintf("%s = %g", k, old), after))
	}
	return out
}

// jsThresholds returns the numbers under jest's coverageThreshold and
// vitest's coverage.thresholds, by key path.
func jsThresholds(p string, src []byte) map[string]float64 {
	out := map[string]float64{}
	if src == nil {
		return out
	}
	var m map[string]any
	switch {
	case path.Base(p) == "package.json":
		var pkg struct {
			Jest map[string]any `json:"jest"`
		}
		if json.Unmarshal(src, &pkg) != nil {
			return out
		}
		m = pkg.Jest
	case strings.HasSuffix(p, ".json"):
		if json.Unmarshal(src, &m) != nil {
			return out
		}
	default:
		lang := "javascript"
		if strings.Contains(path.Ext(p), "ts") {
			lang = "typescript"
		}
		root, _ := parseTS(lang, src)
		if root == nil {
			return out
		}
		var walk func(n *node, keys []string)
		walk = func(n *node, keys []string) {
			if n.kind == "pair" && n.child("key") != nil && n.child("value") != nil {
				keys = append(keys, keyName(n.child("key"), src))
				if v := n.child("value"); v.kind == "number" && underThreshold(keys) {
					if f, err := strconv.ParseFloat(strings.ReplaceAll(v.text(src), "_", ""), 64); err == nil {
						out[strings.Join(keys, ".")] = f
					}
				}
				walk(n.child("value"), keys)
				return
			}
			for _, c := range n.children {
				walk(c, keys)
			}
		}
		walk(root, nil)
		return out
	}
	var walk func(m map[string]any, keys []string)
	walk = func(m map[string]any, keys []string) {
		for k, v := range m {
			ks := append(append([]string{}, keys...), k)
			switch v := v.(type) {
			case float64:
				if underThreshold(ks) {
					out[strings.Join(ks, ".")] = v
				}
			case map[string]any:
				walk(v, ks)
			}
		}
	}
	walk(m, nil)
	return out
}

func underThreshold(keys []string) bool {
	for _, k := range keys {
		if k == "coverageThreshold" || k == "thresholds" {
			return true
		}
	}
	return false
}

func checkJSThresholds(p string, b, a []byte) []Violation {
	return lowerFloors(p, jsThresholds(p, b), jsThresholds(p, a), a)
}

// mochaSettings reads a .mocharc file into key → values.
func mochaSettings(p string, src []byte) map[string][]string {
	var m map[string]any
	switch path.Ext(p) {
	case ".json", ".jsonc":
		if json.Unmarshal(stripJSONComments(src), &m) != nil {
			return nil
		}
	case ".yml", ".yaml":
		if yaml.Unmarshal(src, &m) != nil {
			return nil
		}
	default:
		return jsConfigValues(p, src)
	}
	return flattenJSON(m)
}

// compareMocharc reports a mocha configuration that runs fewer tests: a
// spec lost, recursion turned off, a grep, ignore or exclude added.
func compareMocharc(p string, b, a []byte) []Violation {
	bs, as := mochaSettings(p, b), mochaSettings(p, a)
	if bs == nil || as == nil {
		return nil
	}
	var out []Violation
	if gone := missing(bs["spec"], as["spec"]); len(gone) > 0 {
		out = append(out, harnessViolation(p, "mocha spec lost "+strings.Join(gone, ", "), lineOf(a, "spec"), strings.Join(bs["spec"], ", "), strings.Join(as["spec"], ", ")))
	}
	if strings.Join(bs["recursive"], "") == "true" && strings.Join(as["recursive"], "") != "true" {
		out = append(out, harnessViolation(p, "mocha recursive turned off", lineOf(a, "recursive"), "recursive: true", strings.Join(as["recursive"], "")))
	}
	for _, k := range []string{"grep", "fgrep", "invert", "ignore", "exclude"} {
		if extra := missing(as[k], bs[k]); len(extra) > 0 {
			out = append(out, harnessViolation(p, fmt.Sprintf("mocha %s gained %s", k, strings.Join(extra, ", ")), lineOf(a, k), strings.Join(bs[k], ", "), strings.Join(as[k], ", ")))
		}
	}
	return out
}
