package sorts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedKernelsUpToDate runs the generator in a scratch directory and
// compares its output with the checked-in zsort*.go files, so that an edit
// of the template without go generate, or of a generated file by hand,
// fails here instead of leaving the two orders out of step.
func TestGeneratedKernelsUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator with")
	}
	src, err := os.ReadFile("gen_sort_variants.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gen_sort_variants.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "run", "gen_sort_variants.go")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_sort_variants.go: %v\n%s", err, out)
	}
	for _, name := range []string{"zsortordered.go", "zsortfunc.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what gen_sort_variants.go writes; run go generate ./internal/sorts/", name)
		}
	}
}
