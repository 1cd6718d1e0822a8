package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// featuresOf type-checks one file of package p (import path example.com/p)
// and returns its features.
func featuresOf(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := packageFeatures(pkg)
	slices.Sort(fs)
	return fs
}

func TestFeatureForms(t *testing.T) {
	fs := featuresOf(t, `package p
import "context"
const Limit = 16
type Mode int
const Fast Mode = 1
var ErrX error
type Worker struct{ ID int; hidden int; Embedded }
type Embedded struct{}
func (Embedded) Promoted() {}
func (w *Worker) Run(ctx context.Context, fs ...func(*Worker)) (int, error) { return 0, nil }
type Future[T any] struct{ v T }
func (f Future[U]) Join(w *Worker) U { return f.v }
func Spawn[T any](w *Worker, fn func(*Worker) T) Future[T] { return Future[T]{} }
func Sort[S ~[]E, E interface{ ~int | ~string }](s S) {}
type Runner interface{ Run(int) error; stop() }
func unexported() {}
`)
	want := []string{
		"pkg example.com/p, const Fast = 1",
		"pkg example.com/p, const Fast Mode",
		"pkg example.com/p, const Limit = 16",
		"pkg example.com/p, const Limit ideal-int",
		"pkg example.com/p, func Sort[$0 interface{ ~[]$1 }, $1 interface{ ~int | ~string }]($0)",
		"pkg example.com/p, func Spawn[$0 any](*Worker, func(*Worker) $0) Future[$0]",
		"pkg example.com/p, method (*Worker) Run(context.Context, ...func(*Worker)) (int, error)",
		"pkg example.com/p, method (Embedded) Promoted()",
		"pkg example.com/p, method (Future[$0]) Join(*Worker) $0",
		"pkg example.com/p, method (Worker) Promoted()",
		"pkg example.com/p, type Embedded struct",
		"pkg example.com/p, type Future[$0 any] struct",
		"pkg example.com/p, type Mode int",
		"pkg example.com/p, type Runner interface { Run, unexported methods }",
		"pkg example.com/p, type Runner interface, Run(int) error",
		"pkg example.com/p, type Worker struct",
		"pkg example.com/p, type Worker struct, ID int",
		"pkg example.com/p, type Worker struct, embedded Embedded",
		"pkg example.com/p, var ErrX error",
	}
	if !slices.Equal(fs, want) {
		t.Errorf("features:\n%s\nwant:\n%s", strings.Join(fs, "\n"), strings.Join(want, "\n"))
	}
}

func TestFeatureKey(t *testing.T) {
	for _, c := range []struct{ feature, key string }{
		{"pkg github.com/fjkit/fjkit/par, const SerialCutoff = 4096", "par.SerialCutoff"},
		{"pkg github.com/fjkit/fjkit/forkjoin, func Spawn[$0 any](*Worker, func(*Worker) $0) *Future[$0]", "forkjoin.Spawn"},
		{"pkg github.com/fjkit/fjkit/forkjoin, method (*Future[$0]) Join(*Worker) $0", "forkjoin.Future.Join"},
		{"pkg github.com/fjkit/fjkit/forkjoin, type Func[$0 any, $1 any] struct", "forkjoin.Func"},
		{"pkg github.com/fjkit/fjkit/forkjoin, type Stats struct, Steals uint64", "forkjoin.Stats.Steals"},
		{"pkg example.com/p, type Worker struct, embedded *q.Base[$0]", "p.Worker.Base"},
		{"pkg example.com/p, type Runner interface, Run(int) error", "p.Runner.Run"},
		{"pkg github.com/fjkit/fjkit/forkjoin, var ErrClosed error", "forkjoin.ErrClosed"},
	} {
		if got := featureKey(c.feature); got != c.key {
			t.Errorf("featureKey(%q) = %q, want %q", c.feature, got, c.key)
		}
	}
}

func TestNames(t *testing.T) {
	text := "- `par.SortFunc` takes a cmp.\n- forkjoin.Spawn returns a Future.\n- par.Group.Go takes func() error\n"
	for key, want := range map[string]bool{
		"par.SortFunc":   true,
		"par.Sort":       false, // only par.SortFunc is named
		"forkjoin.Spawn": true,  // followed by a full stop
		"par.Group.Go":   true,
		"par.Group":      false, // named only as part of par.Group.Go
		"Spawn":          false, // only as part of forkjoin.Spawn
	} {
		if got := names(text, key); got != want {
			t.Errorf("names(text, %q) = %v, want %v", key, got, want)
		}
	}
}

const (
	featSpawnPtr = "pkg github.com/fjkit/fjkit/forkjoin, func Spawn[$0 any](*Worker, func(*Worker) $0) *Future[$0]"
	featSpawnVal = "pkg github.com/fjkit/fjkit/forkjoin, func Spawn[$0 any](*Worker, func(*Worker) $0) Future[$0]"
	featCutoff   = "pkg github.com/fjkit/fjkit/par, const SerialCutoff = 4096"
	featSort     = "pkg github.com/fjkit/fjkit/par, func Sort[$0 interface{ ~[]$1 }, $1 cmp.Ordered]($0)"
	featMin      = "pkg github.com/fjkit/fjkit/par, func Min[$0 interface{ ~[]$1 }, $1 cmp.Ordered]($0) $1"
	featBogus    = "pkg github.com/fjkit/fjkit/par, func Bogus(int) int"
)

// module writes an api/ directory and a CHANGELOG.md into a new directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func lines(fs ...string) string { return strings.Join(fs, "\n") + "\n" }

func check(t *testing.T, dir string, code ...string) (string, bool) {
	t.Helper()
	var out strings.Builder
	ok := run(&out, dir, code)
	return out.String(), ok
}

func wantIn(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestCheckRemovedFunction(t *testing.T) {
	dir := module(t, map[string]string{"api/fjkit.txt": lines(featCutoff, featSort)})
	out, ok := check(t, dir, featSort)
	if ok {
		t.Fatalf("a removed constant passed:\n%s", out)
	}
	wantIn(t, out, "removed: "+featCutoff, "`par.SerialCutoff`", "make api", "CHANGELOG.md", "## [Unreleased]")
}

func TestCheckChangedSignature(t *testing.T) {
	dir := module(t, map[string]string{"api/fjkit.txt": lines(featSpawnPtr, featSort)})
	out, ok := check(t, dir, featSort, featSpawnVal)
	if ok {
		t.Fatalf("a changed signature passed:\n%s", out)
	}
	wantIn(t, out, "changed: "+featSpawnPtr, "now: "+featSpawnVal, "`forkjoin.Spawn`", "make api")
}

func TestCheckStaleSnapshotLine(t *testing.T) {
	dir := module(t, map[string]string{"api/fjkit.txt": lines(featBogus, featSort)})
	out, ok := check(t, dir, featSort)
	if ok {
		t.Fatalf("a snapshot line the code lacks passed:\n%s", out)
	}
	wantIn(t, out, featBogus, "`par.Bogus`")
}

func TestCheckAdditionsPass(t *testing.T) {
	dir := module(t, map[string]string{"api/fjkit.txt": lines(featSort)})
	out, ok := check(t, dir, featSort, featMin)
	if !ok {
		t.Fatalf("an addition failed:\n%s", out)
	}
	wantIn(t, out, "added: "+featMin, "make api")
}

func TestCheckChangelogNamesBreakingChanges(t *testing.T) {
	release := lines(featCutoff, featSort, featSpawnPtr)
	now := lines(featSort, featSpawnVal)
	unnamed := "# Changelog\n## [Unreleased]\n### Breaking\n- `forkjoin.Spawn` returns a Future.\n### Added\n- par.SerialCutoff is mentioned here, not under Breaking.\n## [0.1.0] - 2026-11-30\n"
	dir := module(t, map[string]string{
		"api/fjkit.txt":  now,
		"api/v0.1.0.txt": release,
		"CHANGELOG.md":   unnamed,
	})
	out, ok := check(t, dir, featSort, featSpawnVal)
	if ok {
		t.Fatalf("a removal the changelog does not name passed:\n%s", out)
	}
	wantIn(t, out, "`par.SerialCutoff`: "+featCutoff, "## [Unreleased]", "api/v0.1.0.txt")
	if strings.Contains(out, "`forkjoin.Spawn`:") {
		t.Errorf("a change the changelog names was reported:\n%s", out)
	}

	named := strings.Replace(unnamed, "returns a Future.", "returns a Future; `par.SerialCutoff` is gone.", 1)
	dir = module(t, map[string]string{"api/fjkit.txt": now, "api/v0.1.0.txt": release, "CHANGELOG.md": named})
	if out, ok := check(t, dir, featSort, featSpawnVal); !ok {
		t.Fatalf("a changelog naming every removal failed:\n%s", out)
	}
}

func TestCheckChangelogBetweenReleases(t *testing.T) {
	dir := module(t, map[string]string{
		"api/fjkit.txt":   lines(featSort),
		"api/v0.1.0.txt":  lines(featCutoff, featSort),
		"api/v0.2.0.txt":  lines(featSort),
		"api/v0.10.0.txt": lines(featSort),
		"CHANGELOG.md":    "## [Unreleased]\n## [0.10.0]\n## [0.2.0]\n### Added\n- par.Sort\n## [0.1.0]\n",
	})
	out, ok := check(t, dir, featSort)
	if ok {
		t.Fatalf("a release that removed a feature without naming it passed:\n%s", out)
	}
	wantIn(t, out, "## [0.2.0]", "api/v0.1.0.txt has and api/v0.2.0.txt does not", "`par.SerialCutoff`")

	dir = module(t, map[string]string{
		"api/fjkit.txt":  lines(featSort),
		"api/v0.1.0.txt": lines(featSort),
		"CHANGELOG.md":   "## [Unreleased]\n",
	})
	out, ok = check(t, dir, featSort)
	if ok {
		t.Fatalf("a release snapshot without its changelog section passed:\n%s", out)
	}
	wantIn(t, out, `api/v0.1.0.txt has no "## [0.1.0]" section`)
}

// TestLoadAPIEndToEnd runs the whole check on a scratch module through
// `go list`, as `make apicheck` does, and changes its code under a fixed
// snapshot: a removed function and a changed signature are each named.
func TestLoadAPIEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := module(t, map[string]string{
		"go.mod":               "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go":           "package lib\n\nfunc Keep() {}\n\nfunc Gone() {}\n\nfunc Spawn() *int { return nil }\n",
		"internal/x/x.go":      "package x\n\nfunc Hidden() {}\n",
		"cmd/tool/main.go":     "package main\n\nfunc main() {}\n",
		"lib/lib_test.go":      "package lib\n\nfunc TestOnly() {}\n",
		"lib/other_linux.go":   "//go:build ignore\n\npackage lib\n\nfunc Ignored() {}\n",
		"api/placeholder.none": "",
	})
	fs, err := loadAPI(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg example.com/m/lib, func Gone()",
		"pkg example.com/m/lib, func Keep()",
		"pkg example.com/m/lib, func Spawn() *int",
	}
	if !slices.Equal(fs, want) {
		t.Fatalf("features %q, want %q", fs, want)
	}
	if err := writeLines(filepath.Join(dir, "api", snapshotName), fs); err != nil {
		t.Fatal(err)
	}
	src := "package lib\n\nfunc Keep() {}\n\nfunc Spawn() int { return 0 }\n"
	if err := os.WriteFile(filepath.Join(dir, "lib", "lib.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if fs, err = loadAPI(dir); err != nil {
		t.Fatal(err)
	}
	out, ok := check(t, dir, fs...)
	if ok {
		t.Fatalf("the changed module passed:\n%s", out)
	}
	wantIn(t, out, "removed: pkg example.com/m/lib, func Gone()", "changed: pkg example.com/m/lib, func Spawn() *int",
		"now: pkg example.com/m/lib, func Spawn() int", "`lib.Gone`, `lib.Spawn`")
}

func TestCompareChangedIsNotAlsoAdded(t *testing.T) {
	removed, changed, added := compare([]string{featSpawnPtr, featCutoff}, []string{featSpawnVal, featMin})
	if !slices.Equal(removed, []string{featCutoff}) || len(changed) != 1 || changed[0] != (change{featSpawnPtr, featSpawnVal}) ||
		!slices.Equal(added, []string{featMin}) {
		t.Errorf("compare: removed %q, changed %q, added %q", removed, changed, added)
	}
}
