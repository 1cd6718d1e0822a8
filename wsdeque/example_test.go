package wsdeque_test

import (
	"fmt"
	"sync"

	"github.com/fjkit/fjkit/wsdeque"
)

func ExampleNew() {
	d := wsdeque.New[string](4) // room for 4 before it grows; it grows as needed
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		d.Push(s)
	}
	fmt.Println(d.Len())
	// Output: 5
}

// The owner uses its deque as a stack: Pop returns the newest value.
func ExampleDeque_Pop() {
	var d wsdeque.Deque[int] // the zero value is ready to use
	d.Push(1)
	d.Push(2)
	d.Push(3)
	for {
		v, ok := d.Pop()
		if !ok {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 3
	// 2
	// 1
}

// Thieves take the oldest value, from the other end; any goroutine may steal.
func ExampleDeque_Steal() {
	var d wsdeque.Deque[int]
	for i := 1; i <= 3; i++ {
		d.Push(i)
	}
	var wg sync.WaitGroup
	var stolen int
	wg.Go(func() {
		stolen, _ = d.Steal()
	})
	wg.Wait()
	newest, _ := d.Pop()
	fmt.Println("stolen:", stolen, "popped:", newest, "left:", d.Len())
	// Output: stolen: 1 popped: 3 left: 1
}

// A thief moves half of a victim's values into its own deque at once, oldest
// first, and then works on them as their owner.
func ExampleDeque_StealHalf() {
	var victim, mine wsdeque.Deque[int]
	for i := 1; i <= 6; i++ {
		victim.Push(i)
	}
	n := victim.StealHalf(&mine)
	fmt.Println("moved", n, "left", victim.Len())
	for {
		v, ok := mine.Pop()
		if !ok {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// moved 3 left 3
	// 3
	// 2
	// 1
}

func ExampleDeque_Push() {
	var d wsdeque.Deque[string]
	d.Push("first")
	d.Push("second")
	oldest, _ := d.Steal()
	newest, _ := d.Pop()
	fmt.Println(oldest, newest)
	// Output: first second
}

// Len is a snapshot: with thieves about, it may be stale on return.
func ExampleDeque_Len() {
	d := wsdeque.New[int](0)
	d.Push(1)
	d.Push(2)
	d.Pop()
	fmt.Println(d.Len(), d.Cap() >= d.Len())
	// Output: 1 true
}

// PushLocal queues values that thieves cannot take until Publish; the owner
// can pop them at any time.
func ExampleDeque_PushLocal() {
	var d wsdeque.Deque[int]
	for i := range 4 {
		d.PushLocal(i)
	}
	_, stolen := d.Steal()
	fmt.Println("before Publish:", d.Len(), d.Local(), stolen)
	d.Publish()
	v, _ := d.Steal()
	fmt.Println("after Publish:", d.Len(), d.Local(), v)
	// Output:
	// before Publish: 0 4 false
	// after Publish: 3 0 0
}

// Scrub lets go of values thieves took: the ring keeps them until their
// slots are written again, which for large values, or pointers to them,
// delays their collection. An owner that goes idle scrubs its deque.
func ExampleDeque_Scrub() {
	var d wsdeque.Deque[*[1 << 16]byte]
	d.Push(new([1 << 16]byte))
	if v, ok := d.Steal(); ok { // a thief's, on another goroutine in real use
		fmt.Println("stole", len(v), "bytes")
	}
	// Nothing is left to do: clear the slot the stolen value still fills.
	fmt.Println("scrubbed:", d.Scrub())
	// Output:
	// stole 65536 bytes
	// scrubbed: true
}
