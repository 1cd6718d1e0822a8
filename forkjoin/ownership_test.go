package forkjoin_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var updateOwnership = flag.Bool("update-ownership", false, "rewrite testdata/ownership.txt from the code")

// ownershipFile lists, for every field of a struct that forkjoin's
// non-test files declare, the other files that select it: the field's
// owner is the file that declares its struct. TestFieldOwnership keeps the
// list true, so that a new selection from another file is a change a
// reviewer sees in the diff, not one that slips in.
const ownershipFile = "testdata/ownership.txt"

// owned lists fields that no file but their owner may select: the frame
// stack and the tick countdown, which the fork points reach through
// heartbeat.go's and clock.go's methods only.
var owned = []string{
	"lazyFrames.frames", "lazyFrames.nframes", "lazyFrames.promoteAt",
	"clock.checksLeft", "clock.ticksPerRead",
}

// TestFieldOwnership type-checks forkjoin's non-test files and finds, for
// each struct field, the files other than its owner that select it. It
// fails if a field in owned is selected outside its file, or if the
// selections differ from testdata/ownership.txt (go test
// -run FieldOwnership -update-ownership rewrites it).
func TestFieldOwnership(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if !buildsHere(f) {
			continue
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("github.com/fjkit/fjkit/forkjoin", fset, files, info); err != nil {
		t.Fatal(err)
	}
	// The owner of each field: the file of its struct's declaration.
	owner := map[*types.Var]string{}
	fieldName := map[*types.Var]string{}
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				for _, id := range fl.Names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						owner[v], fieldName[v] = file, ts.Name.Name+"."+id.Name
					}
				}
			}
			return true
		})
	}
	if len(owner) == 0 {
		t.Fatal("no struct fields found")
	}
	strays := map[string][]string{} // field -> the other files that select it
	for sel, s := range info.Selections {
		if s.Kind() != types.FieldVal {
			continue
		}
		v, _ := s.Obj().(*types.Var)
		own, ok := owner[v]
		if !ok {
			continue // a field of another package's struct
		}
		file := filepath.Base(fset.Position(sel.Pos()).Filename)
		if file == own {
			continue
		}
		name := fieldName[v]
		if !slices.Contains(strays[name], file) {
			strays[name] = append(strays[name], file)
		}
	}
	for _, f := range owned {
		if fs := strays[f]; len(fs) > 0 {
			t.Errorf("%s is selected outside its file, in %s: use its owner's methods", f, strings.Join(fs, ", "))
		}
	}
	var b strings.Builder
	b.WriteString("# field (its owner: the file that declares its struct): the other files that select it.\n")
	b.WriteString("# Written by TestFieldOwnership -update-ownership; see ownership_test.go.\n")
	keys := make([]string, 0, len(strays))
	for k := range strays {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fs := strays[k]
		slices.Sort(fs)
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(fs, " "))
	}
	if *updateOwnership {
		if err := os.WriteFile(ownershipFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(ownershipFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for _, l := range gl {
			if !slices.Contains(wl, l) {
				t.Errorf("new or changed: %s", l)
			}
		}
		for _, l := range wl {
			if !slices.Contains(gl, l) {
				t.Errorf("gone or changed: %s", l)
			}
		}
		t.Errorf("the fields' selections from other files differ from %s: if the change is meant, rerun with -update-ownership and review the diff", ownershipFile)
	}
}

// buildsHere reports whether f's build constraint, if any, holds in the
// default build of this platform, without race or other tags: the files
// the ordinary build compiles.
func buildsHere(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return expr.Eval(func(tag string) bool {
				return tag == runtime.GOOS || tag == runtime.GOARCH || tag == "gc" ||
					tag == "unix" && runtime.GOOS != "windows" && runtime.GOOS != "plan9" ||
					strings.HasPrefix(tag, "go1.")
			})
		}
	}
	return true
}
