package protect

func harnessKind(p string) string                              { return "" }
func checkHarness(h, p string, b, a []byte) []Violation        { return nil }
func envChecks(p, lang string, b, a []byte) []Violation        { return nil }
func pytestConfigs(src Source) []map[string]string             { return nil }
func flattenJSON(m map[string]any) map[string][]string         { return nil }
func jsConfigValues(name string, b []byte) map[string][]string { return nil }
