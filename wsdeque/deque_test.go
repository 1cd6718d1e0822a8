package wsdeque

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// model is the sequential meaning of a Deque: a slice whose end is the
// bottom. Every operation on a real deque in a single goroutine must do
// exactly what the same operation does here.
// The last local values of s were pushed with PushLocal and not published
// yet: Pop sees them, thieves and Len do not.
type model struct {
	s     []int
	local int
}

func (m *model) push(v int) { m.s = append(m.s, v); m.local = 0 }

func (m *model) pushLocal(v int) { m.s = append(m.s, v); m.local++ }

func (m *model) publish() { m.local = 0 }

func (m *model) published() int { return len(m.s) - m.local }

func (m *model) pop() (int, bool) {
	if len(m.s) == 0 {
		return 0, false
	}
	v := m.s[len(m.s)-1]
	m.s = m.s[:len(m.s)-1]
	m.local = max(0, m.local-1)
	return v, true
}

func (m *model) steal() (int, bool) {
	if m.published() == 0 {
		return 0, false
	}
	v := m.s[0]
	m.s = m.s[1:]
	return v, true
}

// stealHalf moves max(1, n/2) of the n published values, oldest first, to
// the bottom of dst, and publishes all of dst. Without concurrent thieves the
// real StealHalf moves exactly that many.
func (m *model) stealHalf(dst *model) int {
	if m.published() == 0 {
		return 0
	}
	n := max(1, m.published()/2)
	for range n {
		v, _ := m.steal()
		dst.push(v)
	}
	return n
}

// modelRun drives two deques, a and b, and their models through the
// operations that ops encodes, one byte each, checking every result, the
// order of values and Len after every step. Pushed values are distinct, so a
// value handed out twice or out of order shows up as a mismatch.
type modelRun struct {
	t      testing.TB
	a, b   *Deque[int]
	ma, mb model
	next   int
	step   int
	trace  strings.Builder
}

func newModelRun(t testing.TB, a, b *Deque[int]) *modelRun {
	return &modelRun{t: t, a: a, b: b}
}

func (r *modelRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("step %d: "+format+"\nops so far:%s", append([]any{r.step}, append(args, r.trace.String())...)...)
}

func (r *modelRun) push() {
	r.next++
	r.a.Push(r.next)
	r.ma.push(r.next)
}

func (r *modelRun) pushLocal() {
	r.next++
	r.a.PushLocal(r.next)
	r.ma.pushLocal(r.next)
}

// take runs one removal on a deque and on its model and fails unless both
// return the same value and ok.
func (r *modelRun) take(op, call string, real, model func() (int, bool)) {
	r.t.Helper()
	r.trace.WriteString(" " + op)
	got, ok := real()
	want, wok := model()
	if got != want || ok != wok {
		r.fail("%s = %d, %v; want %d, %v", call, got, ok, want, wok)
	}
}

// do applies the operation that byte c encodes.
func (r *modelRun) do(c byte) {
	r.t.Helper()
	r.step++
	switch c % 8 {
	case 0:
		r.trace.WriteString(" push")
		r.push()
	case 1:
		switch c >> 3 % 4 {
		case 0, 1:
			r.trace.WriteString(" pushLocal")
			r.pushLocal()
		case 2:
			r.trace.WriteString(" publish")
			r.a.Publish()
			r.ma.publish()
		default:
			r.trace.WriteString(" push")
			r.push()
		}
	case 2:
		// A burst, so that short inputs still fill and grow the ring;
		// some bursts are local.
		n := int(c>>3) * 3
		r.trace.WriteString(" burst")
		for i := range n {
			if c&8 != 0 && i%2 == 0 {
				r.pushLocal()
			} else {
				r.push()
			}
		}
	case 3:
		r.take("pop", "a.Pop()", r.a.Pop, r.ma.pop)
	case 4:
		r.take("steal", "a.Steal()", r.a.Steal, r.ma.steal)
	case 5:
		r.trace.WriteString(" halfAB")
		got := r.a.StealHalf(r.b)
		want := r.ma.stealHalf(&r.mb)
		if got != want {
			r.fail("a.StealHalf(b) = %d; want %d", got, want)
		}
	case 6:
		r.take("popB", "b.Pop()", r.b.Pop, r.mb.pop)
	case 7:
		if c&8 == 0 {
			r.take("stealB", "b.Steal()", r.b.Steal, r.mb.steal)
		} else {
			r.trace.WriteString(" halfBA")
			got := r.b.StealHalf(r.a)
			want := r.mb.stealHalf(&r.ma)
			if got != want {
				r.fail("b.StealHalf(a) = %d; want %d", got, want)
			}
		}
	}
	r.check()
}

// check compares lengths and capacities with the models.
func (r *modelRun) check() {
	r.t.Helper()
	for _, x := range []struct {
		name string
		d    *Deque[int]
		m    *model
	}{{"a", r.a, &r.ma}, {"b", r.b, &r.mb}} {
		if got, want := x.d.Len(), x.m.published(); got != want {
			r.fail("%s.Len() = %d; want %d", x.name, got, want)
		}
		if got, want := x.d.Local(), x.m.local; got != want {
			r.fail("%s.Local() = %d; want %d", x.name, got, want)
		}
		if c := x.d.Cap(); c != 0 && (c < x.d.Len() || c&(c-1) != 0) {
			r.fail("%s.Cap() = %d with Len %d; want a power of two >= Len", x.name, c, x.d.Len())
		}
	}
}

// drain empties both deques, alternating Pop and Steal, and checks that
// every remaining value comes out in model order.
func (r *modelRun) drain() {
	r.t.Helper()
	for i := 0; len(r.ma.s)+len(r.mb.s) > 0; i++ {
		r.do(byte(3 + i%2*3)) // pop, popB
		r.do(byte(4 + i%2*3)) // steal, stealB
	}
	for _, d := range []*Deque[int]{r.a, r.b} {
		if v, ok := d.Pop(); ok {
			r.fail("Pop after drain = %d, true; want empty", v)
		}
		if v, ok := d.Steal(); ok {
			r.fail("Steal after drain = %d, true; want empty", v)
		}
	}
}

func TestModelRandom(t *testing.T) {
	rounds, steps := 400, 400
	if testing.Short() {
		rounds = 150
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range rounds {
		var a, b *Deque[int]
		switch round % 3 {
		case 0:
			a, b = new(Deque[int]), new(Deque[int]) // zero values
		case 1:
			a, b = New[int](0), New[int](1)
		default:
			a, b = New[int](rng.IntN(100)), new(Deque[int])
		}
		r := newModelRun(t, a, b)
		// Vary the push/pop balance so that some rounds grow deep and
		// some hover around empty, where the last-item path runs.
		bias := rng.IntN(4)
		for range steps {
			c := byte(rng.IntN(256))
			if bias > 0 && rng.IntN(8) < bias {
				c &^= 7 // low bits 0: a push
			}
			r.do(c)
		}
		r.drain()
	}
}

// TestGrowth pushes far past the initial ring so that it doubles many times,
// with values already stolen from the front, and checks every value's order.
func TestGrowth(t *testing.T) {
	for _, capacity := range []int{0, 1, 2, 3, 33, 64} {
		d := New[int](capacity)
		if c := d.Cap(); c < capacity || c&(c-1) != 0 {
			t.Fatalf("New(%d).Cap() = %d; want a power of two >= %d", capacity, c, capacity)
		}
		start := d.Cap()
		const n = 5000
		next, stolen := 0, 0
		for i := range n {
			d.Push(i)
			if i%3 == 0 { // take from the top while growing
				v, ok := d.Steal()
				if !ok || v != next {
					t.Fatalf("cap %d: Steal() = %d, %v; want %d, true", capacity, v, ok, next)
				}
				next++
				stolen++
			}
		}
		if d.Len() != n-stolen {
			t.Fatalf("cap %d: Len() = %d; want %d", capacity, d.Len(), n-stolen)
		}
		if d.Cap() <= start {
			t.Fatalf("cap %d: Cap() stayed %d after %d values; want growth", capacity, d.Cap(), n-stolen)
		}
		for want := n - 1; want >= next; want-- {
			v, ok := d.Pop()
			if !ok || v != want {
				t.Fatalf("cap %d: Pop() = %d, %v; want %d, true", capacity, v, ok, want)
			}
		}
		if v, ok := d.Pop(); ok {
			t.Fatalf("cap %d: Pop() on empty = %d, true", capacity, v)
		}
	}
}

func TestZeroValue(t *testing.T) {
	var d Deque[string]
	if d.Len() != 0 || d.Cap() != 0 {
		t.Fatalf("zero Deque: Len %d Cap %d; want 0, 0", d.Len(), d.Cap())
	}
	if v, ok := d.Pop(); ok || v != "" {
		t.Fatalf("zero Deque Pop() = %q, %v; want \"\", false", v, ok)
	}
	if v, ok := d.Steal(); ok || v != "" {
		t.Fatalf("zero Deque Steal() = %q, %v; want \"\", false", v, ok)
	}
	var dst Deque[string]
	if n := d.StealHalf(&dst); n != 0 {
		t.Fatalf("zero Deque StealHalf() = %d; want 0", n)
	}
	d.Push("x")
	d.Push("y")
	if d.Len() != 2 || d.Cap() < 2 {
		t.Fatalf("after two pushes: Len %d Cap %d", d.Len(), d.Cap())
	}
	if n := d.StealHalf(&dst); n != 1 {
		t.Fatalf("StealHalf of 2 = %d; want 1", n)
	}
	if v, ok := dst.Pop(); !ok || v != "x" {
		t.Fatalf("dst.Pop() = %q, %v; want \"x\", true", v, ok)
	}
	if v, ok := d.Pop(); !ok || v != "y" {
		t.Fatalf("Pop() = %q, %v; want \"y\", true", v, ok)
	}
}

// TestPopEmptyRepeated checks that popping an empty deque many times leaves
// its indices usable: with unsigned indices this is where bottom would wrap.
func TestPopEmptyRepeated(t *testing.T) {
	d := New[int](0)
	for range 100 {
		if _, ok := d.Pop(); ok {
			t.Fatal("Pop on empty deque reported a value")
		}
	}
	if d.Len() != 0 {
		t.Fatalf("Len() = %d after popping empty; want 0", d.Len())
	}
	d.Push(7)
	if v, ok := d.Steal(); !ok || v != 7 {
		t.Fatalf("Steal() = %d, %v; want 7, true", v, ok)
	}
}

func TestNewPanics(t *testing.T) {
	for _, c := range []int{-1, -1 << 40} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "capacity") {
					t.Errorf("New(%d) panic = %q; want a message naming capacity", c, msg)
				}
			}()
			New[int](c)
		}()
	}
}

func TestStealHalfSelfPanics(t *testing.T) {
	d := New[int](0)
	d.Push(1)
	defer func() {
		if recover() == nil {
			t.Fatal("StealHalf(d) into itself did not panic")
		}
	}()
	d.StealHalf(d)
}

// TestStealHalfCounts checks how many values StealHalf moves for each length.
func TestStealHalfCounts(t *testing.T) {
	for n := range 70 {
		src, dst := New[int](0), New[int](0)
		for i := range n {
			src.Push(i)
		}
		got := src.StealHalf(dst)
		want := max(1, n/2)
		if n == 0 {
			want = 0
		}
		if got != want || dst.Len() != want || src.Len() != n-want {
			t.Fatalf("len %d: StealHalf = %d, dst.Len %d, src.Len %d; want %d, %d, %d",
				n, got, dst.Len(), src.Len(), want, want, n-want)
		}
		// Oldest first, kept in order: dst's top is the oldest moved.
		for i := range want {
			if v, ok := dst.Steal(); !ok || v != i {
				t.Fatalf("len %d: dst.Steal() = %d, %v; want %d", n, v, ok, i)
			}
		}
	}
}

// The fields thieves write (top, inflight), the owner's fields, and whatever
// surrounds a Deque must never share a cache line, or every Push pays a miss
// for each value a thief takes. A Deque is 8-byte aligned (it holds int64s),
// and a gap of 56 bytes between two 8-aligned fields contains every residue
// of a 64-byte line boundary, so such fields never share a line.
func TestFieldsOnSeparateCacheLines(t *testing.T) {
	const minGap = 64 - 8
	var d Deque[int]
	if a := unsafe.Alignof(d); a < 8 {
		t.Fatalf("Deque is %d-byte aligned, want 8", a)
	}
	size := unsafe.Sizeof(d)
	top := unsafe.Offsetof(d.top)
	bottom := unsafe.Offsetof(d.bottom)
	ownerEnd := unsafe.Offsetof(d.safe) + unsafe.Sizeof(d.safe)
	inflight := unsafe.Offsetof(d.inflight)
	for _, c := range []struct {
		what      string
		end, next uintptr // end of the earlier field, start of the later one
	}{
		{"start of the deque and top", 0, top},
		{"top and bottom", top + unsafe.Sizeof(d.top), bottom},
		{"the owner's fields and inflight", ownerEnd, inflight},
		{"inflight and the end of the deque", inflight + unsafe.Sizeof(d.inflight), size},
	} {
		if gap := c.next - c.end; gap < minGap {
			t.Errorf("%s: %d bytes apart, want at least %d", c.what, gap, minGap)
		}
	}
}
