package sortinput_test

import (
	"fmt"

	"github.com/fjkit/fjkit/internal/sorts/sortinput"
)

func ExampleInt64s() {
	fmt.Println(sortinput.Int64s("organ", 7, 1))
	fmt.Println(sortinput.Check("organ"), sortinput.Check("zigzag") != nil)
	// Output:
	// [0 1 2 3 2 1 0]
	// <nil> true
}
