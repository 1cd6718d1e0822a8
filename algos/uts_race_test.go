//go:build race

package algos

// utsRace is set when the race detector is on: it slows the parallel search
// of a sample tree (millions of forks, each a dozen synchronized accesses)
// by about 10×, against 6× for the serial one.
const utsRace = true
