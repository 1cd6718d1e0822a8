// Command apicheck records and checks the module's exported API.
//
// It lists every exported feature of the module's public packages (all but
// internal/ and cmd/) in the form of the Go project's api/*.txt files, one
// line per feature, sorted:
//
//	pkg github.com/fjkit/fjkit/par, func Sort[$0 interface{ ~[]$1 }, $1 cmp.Ordered]($0)
//
// Usage, from the module's root (the Makefile's api and apicheck targets):
//
//	go run ./internal/apicheck -w   # write api/fjkit.txt from the code
//	go run ./internal/apicheck      # check the code and CHANGELOG.md against api/
//	go run ./internal/apicheck -list -dir DIR   # print DIR's features
//
// The check fails when api/fjkit.txt records a feature the code does not
// have (removed, or changed in its signature), and when a feature of a
// release (api/vX.Y.Z.txt) is missing from the next release or from the
// current snapshot without being named in the "### Breaking" part of that
// version's section of CHANGELOG.md (the "## [Unreleased]" section for the
// current snapshot). Features the code has and the snapshot lacks are
// additions: they pass, and -w records them. docs/api.md says why.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const snapshotName = "fjkit.txt"

func main() {
	write := flag.Bool("w", false, "write the code's features to api/"+snapshotName)
	list := flag.Bool("list", false, "print the features of the module in -dir and exit")
	dir := flag.String("dir", ".", "the module's root")
	flag.Parse()
	features, err := loadAPI(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicheck:", err)
		os.Exit(2)
	}
	switch {
	case *list:
		for _, f := range features {
			fmt.Println(f)
		}
	case *write:
		path := filepath.Join(*dir, "api", snapshotName)
		if err := writeLines(path, features); err != nil {
			fmt.Fprintln(os.Stderr, "apicheck:", err)
			os.Exit(2)
		}
	default:
		if !run(os.Stdout, *dir, features) {
			os.Exit(1)
		}
	}
}

// run checks features against the module's api/ directory and
// CHANGELOG.md, writes what it finds to out, and reports whether the
// check passed.
func run(out io.Writer, dir string, features []string) bool {
	apiDir := filepath.Join(dir, "api")
	snapshot, err := readLines(filepath.Join(apiDir, snapshotName))
	if err != nil {
		fmt.Fprintf(out, "apicheck: %v\nRun `make api` to write the snapshot.\n", err)
		return false
	}
	ok := true
	removed, changed, added := compare(snapshot, features)
	if len(removed)+len(changed) > 0 {
		ok = false
		fmt.Fprintf(out, "apicheck: api/%s records features the code does not have:\n", snapshotName)
		var keys []string
		for _, f := range removed {
			fmt.Fprintf(out, "\tremoved: %s\n", f)
			keys = append(keys, featureKey(f))
		}
		for _, c := range changed {
			fmt.Fprintf(out, "\tchanged: %s\n\t    now: %s\n", c.old, c.new)
			keys = append(keys, featureKey(c.old))
		}
		fmt.Fprintf(out, "If the change is meant, run `make api` to record it in api/%s, and name %s\n"+
			"under \"### Breaking\" in the \"## [Unreleased]\" section of CHANGELOG.md.\n", snapshotName, backquoted(keys))
	}
	if len(added) > 0 {
		fmt.Fprintf(out, "apicheck: %d features are new since api/%s (fine; `make api` records them):\n", len(added), snapshotName)
		for _, f := range added {
			fmt.Fprintf(out, "\tadded: %s\n", f)
		}
	}
	if !checkChangelog(out, dir, snapshot) {
		ok = false
	}
	if ok {
		fmt.Fprintf(out, "apicheck: ok (%d features)\n", len(features))
	}
	return ok
}

type change struct{ old, new string }

// compare sets the recorded features against the code's: removed are the
// recorded features whose name the code no longer has, changed those whose
// name it has with another form, added the code's other features the
// record lacks.
func compare(recorded, code []string) (removed []string, changed []change, added []string) {
	have := map[string]bool{}
	byKey := map[string][]string{}
	for _, f := range code {
		have[f] = true
		k := featureKind(f)
		byKey[k] = append(byKey[k], f)
	}
	rec := map[string]bool{}
	for _, f := range recorded {
		rec[f] = true
	}
	isNow := map[string]bool{} // the code's form of a changed feature
	for _, f := range recorded {
		if have[f] {
			continue
		}
		var now []string
		for _, g := range byKey[featureKind(f)] {
			if !rec[g] {
				now = append(now, g)
				isNow[g] = true
			}
		}
		if len(now) > 0 {
			changed = append(changed, change{f, strings.Join(now, "\n\t    now: ")})
		} else {
			removed = append(removed, f)
		}
	}
	for _, f := range code {
		if !rec[f] && !isNow[f] {
			added = append(added, f)
		}
	}
	return removed, changed, added
}

// featureKind is a feature's name together with what it is (func, method,
// field, the type line itself, a constant's value or type), so that two
// forms of one feature are seen as a change.
func featureKind(f string) string {
	_, rest, _ := strings.Cut(f, ", ")
	kind, _, _ := strings.Cut(rest, " ")
	if kind == "const" {
		if strings.Contains(rest, " = ") {
			kind = "const="
		}
	}
	if kind == "type" {
		if strings.Contains(rest, " struct, ") || strings.Contains(rest, " interface, ") {
			kind = "member"
		}
	}
	return kind + " " + featureKey(f)
}

// featureKey is the name a changelog uses for a feature: package.Name,
// package.Type.Method, package.Type.Field.
func featureKey(f string) string {
	rest, ok := strings.CutPrefix(f, "pkg ")
	if !ok {
		return f
	}
	path, rest, _ := strings.Cut(rest, ", ")
	pkg := path[strings.LastIndex(path, "/")+1:]
	kind, rest, _ := strings.Cut(rest, " ")
	switch kind {
	case "method":
		// method (*T[$0]) M(...)
		recv, m, _ := strings.Cut(strings.TrimPrefix(rest, "("), ") ")
		return pkg + "." + typeName(recv) + "." + ident(m)
	case "type":
		name := ident(rest)
		for _, sep := range []string{" struct, ", " interface, "} {
			if i := strings.Index(rest, sep); i >= 0 {
				member := rest[i+len(sep):]
				if e, ok := strings.CutPrefix(member, "embedded "); ok {
					return pkg + "." + name + "." + typeName(e)
				}
				return pkg + "." + name + "." + ident(member)
			}
		}
		return pkg + "." + name
	default:
		return pkg + "." + ident(rest)
	}
}

// typeName reduces a type expression such as *forkjoin.Future[$0] to the
// name a user reads: Future.
func typeName(t string) string {
	t = strings.TrimLeft(t, "*")
	if i := strings.IndexByte(t, '['); i >= 0 {
		t = t[:i]
	}
	return t[strings.LastIndex(t, ".")+1:]
}

func ident(s string) string {
	for i, r := range s {
		if !isIdent(r) {
			return s[:i]
		}
	}
	return s
}

func isIdent(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func backquoted(keys []string) string {
	seen := map[string]bool{}
	var qs []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			qs = append(qs, "`"+k+"`")
		}
	}
	return strings.Join(qs, ", ")
}

// checkChangelog checks that every feature a release recorded and the next
// release (or the current snapshot) lacks is named in the "### Breaking"
// part of the later version's section of CHANGELOG.md.
func checkChangelog(out io.Writer, dir string, snapshot []string) bool {
	releases, err := releaseFiles(filepath.Join(dir, "api"))
	if err != nil {
		fmt.Fprintf(out, "apicheck: %v\n", err)
		return false
	}
	if len(releases) == 0 {
		return true
	}
	text, err := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if err != nil {
		fmt.Fprintf(out, "apicheck: %v\n", err)
		return false
	}
	sections := changelogSections(string(text))
	ok := true
	type step struct {
		from, to  string // api file names
		section   string // CHANGELOG.md section name
		toFeature []string
	}
	var steps []step
	old := map[string][]string{} // each release's features
	prev := ""
	for _, r := range releases {
		fs, err := readLines(filepath.Join(dir, "api", r+".txt"))
		if err != nil {
			fmt.Fprintf(out, "apicheck: %v\n", err)
			return false
		}
		version := strings.TrimPrefix(r, "v")
		if _, found := sections[version]; !found {
			fmt.Fprintf(out, "apicheck: api/%s.txt has no \"## [%s]\" section in CHANGELOG.md\n", r, version)
			ok = false
		}
		if prev != "" {
			steps = append(steps, step{prev + ".txt", r + ".txt", version, fs})
		}
		old[r+".txt"] = fs
		prev = r
	}
	steps = append(steps, step{prev + ".txt", snapshotName, "Unreleased", snapshot})
	for _, s := range steps {
		breaking := sections[s.section]
		removed, changed, _ := compare(old[s.from], s.toFeature)
		var missing []string
		seen := map[string]bool{}
		for _, f := range removed {
			missing = appendUnnamed(missing, seen, breaking, f)
		}
		for _, c := range changed {
			missing = appendUnnamed(missing, seen, breaking, c.old)
		}
		if len(missing) > 0 {
			ok = false
			fmt.Fprintf(out, "apicheck: CHANGELOG.md's \"## [%s]\" section does not name under \"### Breaking\" these features\n"+
				"that api/%s has and api/%s does not:\n", s.section, s.from, s.to)
			for _, m := range missing {
				fmt.Fprintf(out, "\t%s\n", m)
			}
			fmt.Fprintf(out, "Name each (the part in backquotes) under \"### Breaking\" in that section of CHANGELOG.md.\n")
		}
	}
	return ok
}

func appendUnnamed(missing []string, seen map[string]bool, breaking, f string) []string {
	k := featureKey(f)
	if seen[k] || names(breaking, k) {
		return missing
	}
	seen[k] = true
	return append(missing, "`"+k+"`: "+f)
}

// names reports whether text names key as a whole: par.Sort is not named
// by par.SortFunc, nor by par.Sort.Len, nor is Sort by par.Sort.
func names(text, key string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], key)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(key)
		i = start + 1
		if start > 0 && (isIdent(rune(text[start-1])) || text[start-1] == '.') {
			continue
		}
		if end < len(text) {
			c := rune(text[end])
			if isIdent(c) {
				continue
			}
			if c == '.' && end+1 < len(text) && isIdent(rune(text[end+1])) {
				continue
			}
		}
		return true
	}
}

// changelogSections maps each "## [version]" section of a Keep a Changelog
// file to the text of its "### Breaking" part ("" when it has none).
func changelogSections(text string) map[string]string {
	sections := map[string]string{}
	var cur string
	inBreaking := false
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(line, "## ["); ok {
			cur, _, _ = strings.Cut(h, "]")
			sections[cur] += ""
			inBreaking = false
			continue
		}
		if h, ok := strings.CutPrefix(line, "### "); ok {
			inBreaking = strings.TrimSpace(h) == "Breaking"
			continue
		}
		if cur != "" && inBreaking {
			sections[cur] += line + "\n"
		}
	}
	return sections
}

// releaseFiles returns the names (without .txt) of api/vX.Y.Z.txt, the
// snapshots of the released versions, oldest first.
func releaseFiles(apiDir string) ([]string, error) {
	entries, err := os.ReadDir(apiDir)
	if err != nil {
		return nil, err
	}
	var rs []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if ok && semver(name) != nil {
			rs = append(rs, name)
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		a, b := semver(rs[i]), semver(rs[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	return rs, nil
}

// semver parses vMAJOR.MINOR.PATCH, or returns nil.
func semver(s string) []int {
	rest, ok := strings.CutPrefix(s, "v")
	if !ok {
		return nil
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return nil
	}
	var v []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil
		}
		v = append(v, n)
	}
	return v
}

func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

func writeLines(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
