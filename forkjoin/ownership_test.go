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
	"clock.ticksLeft", "clock.checksLeft", "clock.ticksPerRead",
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
	// What each file owns, for the table in docs/design.md: the struct
	// types and package-level variables it declares.
	state := map[string][]string{}
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		state[file] = nil
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if _, ok := sp.Type.(*ast.StructType); ok {
						state[file] = append(state[file], sp.Name.Name)
					}
				case *ast.ValueSpec:
					if gd.Tok == token.VAR {
						for _, id := range sp.Names {
							if id.Name != "_" {
								state[file] = append(state[file], id.Name)
							}
						}
					}
				}
			}
		}
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
	// Package-level variables used outside their file count as their
	// owner's state touched there.
	for id, obj := range info.Uses {
		v, ok := obj.(*types.Var)
		if !ok || v.Parent() != v.Pkg().Scope() || v.Pkg().Path() != "github.com/fjkit/fjkit/forkjoin" {
			continue
		}
		own := filepath.Base(fset.Position(v.Pos()).Filename)
		file := filepath.Base(fset.Position(id.Pos()).Filename)
		if file == own {
			continue
		}
		touched := strays[v.Name()]
		if !slices.Contains(touched, file) {
			strays[v.Name()] = append(touched, file)
		}
	}
	checkDesignTable(t, state, strays)
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
		if strings.Contains(k, ".") { // fields only; variables are in the design table
			keys = append(keys, k)
		}
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

// The ownership table in docs/design.md: a row per file of the default
// build, its responsibility written by hand, the state it owns and the other
// files that touch that state written by TestFieldOwnership, so that the
// table cannot drift from the code.
const (
	designFile  = "../docs/design.md"
	tableStart  = "<!-- ownership table: TestFieldOwnership -update-ownership writes the last two columns; the responsibility column is written by hand -->"
	tableEnd    = "<!-- end of the ownership table -->"
	tableHeader = "| file | responsibility | state it owns | other files that touch it |\n|---|---|---|---|\n"
)

// checkDesignTable renders the table from state (file: the struct types and
// variables it declares) and touched ("Type.field" or a variable: the
// other files that select or use it), keeping each row's responsibility,
// and compares it with docs/design.md's, or rewrites it there under
// -update-ownership.
func checkDesignTable(t *testing.T, state map[string][]string, touched map[string][]string) {
	t.Helper()
	doc, err := os.ReadFile(designFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no ownership table between %q and %q", designFile, tableStart, tableEnd)
	}
	old := text[i+len(tableStart) : j]
	resp := map[string]string{} // file: its responsibility, from the table as it stands
	for _, line := range strings.Split(old, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 2 || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		resp[strings.Trim(cells[0], "| `")] = cells[1]
	}
	files := make([]string, 0, len(state))
	for f := range state {
		files = append(files, f)
	}
	slices.Sort(files)
	var b strings.Builder
	b.WriteString("\n" + tableHeader)
	for _, f := range files {
		r, ok := resp[f]
		if !ok {
			t.Errorf("%s: the ownership table has no row for %s: add one (`| `%s` | what it is for | |`) and rerun with -update-ownership", designFile, f, f)
			r = "?"
		}
		var owns, others []string
		for _, name := range state[f] {
			owns = append(owns, "`"+name+"`")
			var users []string
			for key, fs := range touched {
				if key == name || strings.HasPrefix(key, name+".") {
					for _, u := range fs {
						if !slices.Contains(users, u) {
							users = append(users, u)
						}
					}
				}
			}
			if len(users) > 0 {
				slices.Sort(users)
				others = append(others, "`"+name+"`: "+strings.Join(users, ", "))
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f, r, strings.Join(owns, ", "), strings.Join(others, "; "))
	}
	for f := range resp {
		if _, ok := state[f]; !ok {
			t.Errorf("%s: the ownership table has a row for %s, which the default build does not compile", designFile, f)
		}
	}
	if b.String() == old {
		return
	}
	if *updateOwnership {
		text = text[:i+len(tableStart)] + b.String() + text[j:]
		if err := os.WriteFile(designFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's ownership table differs from the code: rerun with -update-ownership and review the diff", designFile)
}
