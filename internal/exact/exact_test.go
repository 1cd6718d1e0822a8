package exact

import "testing"

type counts struct {
	Bytes, Files int64
	Name         string
	Flags        [2]bool
}

type mixed struct {
	N   int
	Sum float64
}

type myInt int

func TestOf(t *testing.T) {
	for _, c := range []struct {
		name string
		got  func() bool
		want bool
	}{
		{"int", Of[int], true},
		{"uint8", Of[uint8], true},
		{"named int", Of[myInt], true},
		{"bool", Of[bool], true},
		{"string", Of[string], true},
		{"struct of integers, a string and bools", Of[counts], true},
		{"array of int32", Of[[4]int32], true},
		{"empty struct", Of[struct{}], true},
		{"float64", Of[float64], false},
		{"complex128", Of[complex128], false},
		{"struct with a float", Of[mixed], false},
		{"array of float32", Of[[2]float32], false},
		{"pointer", Of[*int], false},
		{"slice", Of[[]int], false},
		{"map", Of[map[int]int], false},
		{"interface", Of[any], false},
	} {
		for range 2 { // asked, then cached
			if got := c.got(); got != c.want {
				t.Errorf("Of[%s]() = %v, want %v", c.name, got, c.want)
			}
		}
	}
}

func BenchmarkOfCached(b *testing.B) {
	Of[counts]()
	for b.Loop() {
		if !Of[counts]() {
			b.Fatal("not exact")
		}
	}
}
