package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// publicPackage reports whether a package of the module is part of its
// API: not a command, not internal, not test data.
func publicPackage(path string, name string) bool {
	if name == "main" {
		return false
	}
	for _, elem := range strings.Split(path, "/") {
		if elem == "internal" || elem == "cmd" || elem == "testdata" {
			return false
		}
	}
	return true
}

type listedPackage struct {
	ImportPath string
	Name       string
	Export     string
	Module     *struct{ Main bool }
}

// loadAPI returns the features of every public package of the module in
// dir. It type-checks nothing itself: `go list -export` compiles the
// packages and the compiler's export data holds every exported
// declaration with its full type, so the build's own view of the API is
// what is recorded, under the build's own file selection.
func loadAPI(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Name,Export,Module", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	exports := map[string]string{}
	var public []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Main && publicPackage(p.ImportPath, p.Name) {
			public = append(public, p.ImportPath)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var features []string
	for _, path := range public {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("importing %s: %v", path, err)
		}
		features = append(features, packageFeatures(pkg)...)
	}
	sort.Strings(features)
	return features, nil
}

// packageFeatures lists a package's exported features in the form of the
// Go project's api/*.txt files, one string per feature.
func packageFeatures(pkg *types.Package) []string {
	var fs []string
	prefix := "pkg " + pkg.Path() + ", "
	add := func(s string) { fs = append(fs, prefix+s) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			p := newPrinter(pkg, nil)
			add(fmt.Sprintf("const %s = %s", name, obj.Val().ExactString()))
			if b, ok := obj.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				add(fmt.Sprintf("const %s ideal-%s", name, strings.TrimPrefix(b.Name(), "untyped ")))
			} else {
				add(fmt.Sprintf("const %s %s", name, p.typ(obj.Type())))
			}
		case *types.Var:
			add(fmt.Sprintf("var %s %s", name, newPrinter(pkg, nil).typ(obj.Type())))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			p := newPrinter(pkg, sig.TypeParams())
			add(fmt.Sprintf("func %s%s%s", name, p.tparams(sig.TypeParams()), p.signature(sig)))
		case *types.TypeName:
			fs = append(fs, typeFeatures(pkg, prefix, obj)...)
		}
	}
	return fs
}

func typeFeatures(pkg *types.Package, prefix string, obj *types.TypeName) []string {
	var fs []string
	add := func(s string) { fs = append(fs, prefix+s) }
	name := obj.Name()
	if alias, ok := obj.Type().(*types.Alias); ok && obj.IsAlias() {
		p := newPrinter(pkg, alias.TypeParams())
		add(fmt.Sprintf("type %s%s = %s", name, p.tparams(alias.TypeParams()), p.typ(alias.Rhs())))
		return fs
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return fs
	}
	tps := named.TypeParams()
	p := newPrinter(pkg, tps)
	head := "type " + name + p.tparams(tps)
	// The type's name in its own features: its parameters, not their constraints.
	self := name + p.targs(tps)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add(head + " struct")
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				add(fmt.Sprintf("type %s struct, embedded %s", self, p.typ(f.Type())))
			} else {
				add(fmt.Sprintf("type %s struct, %s %s", self, f.Name(), p.typ(f.Type())))
			}
		}
	case *types.Interface:
		if !u.IsMethodSet() {
			add(head + " " + p.typ(u))
			break
		}
		var names []string
		unexported := false
		for i := 0; i < u.NumMethods(); i++ {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			add(fmt.Sprintf("type %s interface, %s%s", self, m.Name(), p.signature(m.Type().(*types.Signature))))
		}
		if unexported {
			names = append(names, "unexported methods")
		}
		sort.Strings(names)
		add(fmt.Sprintf("%s interface { %s }", head, strings.Join(names, ", ")))
	default:
		add(head + " " + p.typ(u))
	}
	// Methods, promoted ones included: the method set of *T holds every
	// method a user can call, and a method in T's own set has a value
	// receiver.
	valueSet := types.NewMethodSet(named)
	ptrSet := types.NewMethodSet(types.NewPointer(named))
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return fs
	}
	for i := 0; i < ptrSet.Len(); i++ {
		sel := ptrSet.At(i)
		m := sel.Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		recv := self
		if valueSet.Lookup(m.Pkg(), m.Name()) == nil {
			recv = "*" + self
		}
		sig := m.Type().(*types.Signature)
		add(fmt.Sprintf("method (%s) %s%s", recv, m.Name(), p.signature(sig)))
	}
	return fs
}

// printer writes types as cmd/api does: the package's own names bare,
// other packages' names qualified by their package name, and type
// parameters numbered $0, $1, ... in the order they are declared, so that
// renaming a type parameter changes no feature.
type printer struct {
	pkg    *types.Package
	params map[string]int
}

func newPrinter(pkg *types.Package, tps *types.TypeParamList) *printer {
	p := &printer{pkg: pkg, params: map[string]int{}}
	for i := 0; i < tps.Len(); i++ {
		p.params[tps.At(i).Obj().Name()] = i
	}
	return p
}

func (p *printer) tparams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < tps.Len(); i++ {
		parts = append(parts, fmt.Sprintf("$%d %s", i, p.typ(tps.At(i).Constraint())))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (p *printer) targs(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < tps.Len(); i++ {
		parts = append(parts, fmt.Sprintf("$%d", i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (p *printer) typ(t types.Type) string {
	var b strings.Builder
	p.write(&b, t)
	return b.String()
}

func (p *printer) qualified(obj types.Object) string {
	if obj.Pkg() == nil || obj.Pkg() == p.pkg || obj.Pkg().Path() == p.pkg.Path() {
		return obj.Name()
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

func (p *printer) typeList(b *strings.Builder, ts *types.TypeList) {
	if ts.Len() == 0 {
		return
	}
	b.WriteByte('[')
	for i := 0; i < ts.Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		p.write(b, ts.At(i))
	}
	b.WriteByte(']')
}

func (p *printer) write(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Basic:
		b.WriteString(t.Name())
	case *types.Named:
		b.WriteString(p.qualified(t.Obj()))
		p.typeList(b, t.TypeArgs())
	case *types.Alias:
		if t.Obj().Pkg() == nil && t.Obj().Name() == "any" {
			b.WriteString("any")
			return
		}
		b.WriteString(p.qualified(t.Obj()))
		p.typeList(b, t.TypeArgs())
	case *types.TypeParam:
		if i, ok := p.params[t.Obj().Name()]; ok {
			fmt.Fprintf(b, "$%d", i)
		} else {
			b.WriteString(t.Obj().Name())
		}
	case *types.Pointer:
		b.WriteByte('*')
		p.write(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		p.write(b, t.Elem())
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		p.write(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		p.write(b, t.Key())
		b.WriteByte(']')
		p.write(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		p.write(b, t.Elem())
	case *types.Signature:
		b.WriteString("func")
		b.WriteString(p.signature(t))
	case *types.Struct:
		b.WriteString("struct{")
		n := 0
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if n > 0 {
				b.WriteString("; ")
			}
			n++
			if !f.Embedded() {
				b.WriteString(f.Name())
				b.WriteByte(' ')
			}
			p.write(b, f.Type())
		}
		b.WriteByte('}')
	case *types.Interface:
		if t.Empty() {
			b.WriteString("any")
			return
		}
		b.WriteString("interface{ ")
		var parts []string
		for i := 0; i < t.NumExplicitMethods(); i++ {
			m := t.ExplicitMethod(i)
			parts = append(parts, m.Name()+p.signature(m.Type().(*types.Signature)))
		}
		for i := 0; i < t.NumEmbeddeds(); i++ {
			parts = append(parts, p.typ(t.EmbeddedType(i)))
		}
		b.WriteString(strings.Join(parts, "; "))
		b.WriteString(" }")
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			if i > 0 {
				b.WriteString(" | ")
			}
			term := t.Term(i)
			if term.Tilde() {
				b.WriteByte('~')
			}
			p.write(b, term.Type())
		}
	case *types.Tuple:
		b.WriteString(p.tuple(t, false))
	default:
		b.WriteString(t.String())
	}
}

func (p *printer) tuple(t *types.Tuple, variadic bool) string {
	var parts []string
	for i := 0; i < t.Len(); i++ {
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			parts = append(parts, "..."+p.typ(typ.(*types.Slice).Elem()))
			continue
		}
		parts = append(parts, p.typ(typ))
	}
	return strings.Join(parts, ", ")
}

// signature writes a signature's parameters and results without their
// names: a renamed parameter changes no caller.
func (p *printer) signature(sig *types.Signature) string {
	for i := 0; i < sig.RecvTypeParams().Len(); i++ {
		p.params[sig.RecvTypeParams().At(i).Obj().Name()] = i
	}
	s := "(" + p.tuple(sig.Params(), sig.Variadic()) + ")"
	switch sig.Results().Len() {
	case 0:
	case 1:
		s += " " + p.typ(sig.Results().At(0).Type())
	default:
		s += " (" + p.tuple(sig.Results(), false) + ")"
	}
	return s
}
