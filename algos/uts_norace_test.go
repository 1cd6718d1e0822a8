//go:build !race

package algos

const utsRace = false
