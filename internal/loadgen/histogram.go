package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: each power of two is split into
// 2^subBits buckets, so a recorded value is off by at most 1/2^subBits
// (0.8%), as in HdrHistogram with two significant digits.
const subBits = 7

// maxBucket is the bucket of the largest int64.
var maxBucket = bucketOf(math.MaxInt64)

// Histogram records latencies in log-linear buckets: constant memory (about
// 60 KiB) however many calls are made, and quantiles within 0.8%. The zero
// value is ready to use. It is not safe for concurrent use: give each caller
// its own and Merge them.
type Histogram struct {
	counts   []uint64
	n        uint64
	sum      float64 // nanoseconds, for the mean
	min, max int64
}

func bucketOf(v int64) int {
	if v < 1<<subBits {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - subBits - 1
	return (shift+1)<<subBits + int(v>>shift) - 1<<subBits
}

// lowest returns the smallest value that falls in bucket i.
func lowest(i int) int64 {
	if i < 1<<subBits {
		return int64(i)
	}
	shift := i>>subBits - 1
	m := int64(i&(1<<subBits-1) | 1<<subBits)
	return m << shift
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	v := int64(max(d, 0))
	if h.counts == nil {
		h.counts = make([]uint64, maxBucket+1)
	}
	h.counts[bucketOf(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.n++
	h.sum += float64(v)
}

// Merge adds every value recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]uint64, maxBucket+1)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Count returns how many values were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Max returns the largest value recorded, exactly.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Mean returns the mean of the values recorded.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// Quantile returns the value below which a share q of the recorded values
// fall (q in [0, 1]), as the midpoint of its bucket, clamped to the
// exact minimum and maximum. It is 0 when nothing was recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := lowest(i), int64(math.MaxInt64)
			if i < maxBucket {
				hi = lowest(i + 1)
			}
			v := lo + (hi-lo)/2
			return time.Duration(min(max(v, h.min), h.max))
		}
	}
	return time.Duration(h.max)
}
