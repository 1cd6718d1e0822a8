//go:build !race

package algos

const utsRace = false

func strandMode() bool { return false }
