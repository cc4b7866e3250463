package metrics

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The summaries of every histogram are computed each second, for the live
// result, through hdrhistogram-go's public API only. Percentiles and the
// maximum come from one ValueAtPercentilesSlice, which skips empty blocks of
// counts; the library's Max and Mean walk every one of ~23,500 buckets
// through an iterator, and its Encode makes a zlib writer at best
// compression per histogram (~0.8 MB of garbage each). For a histogram that
// is encoded, Export's copy of the counts gives the mean and the encoding in
// linear passes, with a zlib writer reused: the same values as the
// library's, and an encoding that decodes to the same histogram (counts_test.go
// checks both). The copy is 184 KB a histogram a second: garbage, but a
// collection's cost is the live heap's, which this does not grow.

// The geometry of NewHistogram's histograms (1 µs to an hour at three
// significant digits), as HdrHistogram lays out its counts (and so its V2
// encoding): bucket 0 holds the values 0 … 2047 one by one; bucket b ≥ 1
// holds 1024·2^b … 2048·2^b − 1 in steps of 2^b. Counts are indexed flat:
// 1024 per bucket after the first 2048.
const (
	subHalfMag   = 10
	subHalfCount = 1 << subHalfMag
)

// view is a copy of a histogram's counts, with the first and last index
// that hold a value (-1 when none does).
type view struct {
	counts      []int64
	total       int64
	first, last int
}

// ownGeometry reports whether h is laid out as NewHistogram's are (decoded
// ones from a result are too); the linear passes apply only then.
func ownGeometry(h *hdrhistogram.Histogram) bool {
	return h.LowestTrackableValue() == lowestUs && h.HighestTrackableValue() == highestUs && h.SignificantFigures() == sigFigs
}

// viewOf returns a copy of h's counts (Export), and false when h has
// another geometry or a conversion ratio other than 1 (one decoded from
// elsewhere; encode writes 1).
func viewOf(h *hdrhistogram.Histogram) (view, bool) {
	if !ownGeometry(h) {
		return view{}, false
	}
	snap := h.Export()
	if r := snap.IntegerToDoubleConversionRatio; r != 0 && r != 1 {
		return view{}, false
	}
	v := view{counts: snap.Counts, total: h.TotalCount(), first: -1, last: -1}
	for i, c := range v.counts {
		if c != 0 {
			v.first = i
			break
		}
	}
	for i := len(v.counts) - 1; i >= v.first && i >= 0; i-- {
		if v.counts[i] != 0 {
			v.last = i
			break
		}
	}
	return v, true
}

// span returns the lowest value that counts at flat index i stand for, and
// how many values they stand for (valueFromFlatIndex, sizeOfEquivalentValueRange).
func span(i int) (low, size int64) {
	bucket := i>>subHalfMag - 1
	sub := i&(subHalfCount-1) + subHalfCount
	if bucket < 0 {
		sub -= subHalfCount
		bucket = 0
	}
	return int64(sub) << bucket, 1 << bucket
}

// summaryPercentiles are the percentiles of a summary, and 100 for the
// maximum: the value at the 100th percentile is the highest equivalent of
// the last value recorded, which is what h.Max() returns.
var summaryPercentiles = []float64{50, 90, 95, 99, 99.9, 100}

// Max is h.Max(), through the library's blocked scan of the counts rather
// than its per-bucket iterator.
func Max(h *hdrhistogram.Histogram) int64 {
	if h.TotalCount() == 0 {
		return h.Max()
	}
	return h.ValueAtPercentilesSlice(summaryPercentiles[len(summaryPercentiles)-1:])[0]
}

// mean is h.Mean(), term by term in the library's order, so to the bit.
func (v view) mean() float64 {
	if v.total == 0 {
		return 0
	}
	var mean float64
	total := float64(v.total)
	for i := v.first; i <= v.last; i++ {
		if c := v.counts[i]; c != 0 {
			low, size := span(i)
			mean += float64(c) * float64(low+size>>1) / total
		}
	}
	return mean
}

// MeanSd returns h.Mean() and h.StdDev(), through a copy of its counts
// when it is laid out as NewHistogram's are (one linear pass each, not the
// library's per-bucket iterator).
func MeanSd(h *hdrhistogram.Histogram) (mean, sd float64) {
	if h.TotalCount() == 0 {
		return 0, 0
	}
	if v, ok := viewOf(h); ok {
		mean = v.mean()
		return mean, v.stddev(mean)
	}
	return h.Mean(), h.StdDev()
}

// AtOrBelow returns, for each limit (ascending, in µs), how many of h's
// values are at or below it: a value counts under a limit when the highest
// value its bucket stands for is (the histogram's precision, three
// significant digits, is the only blur). For a Prometheus histogram's
// cumulative buckets.
func AtOrBelow(h *hdrhistogram.Histogram, limits []int64) []int64 {
	out := make([]int64, len(limits))
	add := func(highest, count int64) {
		for j := len(limits) - 1; j >= 0 && limits[j] >= highest; j-- {
			out[j] += count
		}
	}
	if v, ok := viewOf(h); ok {
		for i := v.first; i <= v.last && i >= 0; i++ {
			if c := v.counts[i]; c != 0 {
				low, size := span(i)
				add(low+size-1, c)
			}
		}
		return out
	}
	for _, b := range h.Distribution() {
		if b.Count != 0 {
			add(b.To, b.Count)
		}
	}
	return out
}

// stddev is h.StdDev() given its mean, term by term in the library's order.
func (v view) stddev(mean float64) float64 {
	if v.total == 0 {
		return 0
	}
	var dev2 float64
	total := float64(v.total)
	for i := v.first; i <= v.last; i++ {
		if c := v.counts[i]; c != 0 {
			low, size := span(i)
			d := float64(low+size>>1) - mean
			dev2 += (d * d) * float64(c) / total
		}
	}
	return math.Sqrt(dev2)
}

// The V2 encoding (hdr_encoding.go): a compressed-encoding cookie, the
// length of the zlib stream, and the stream; inside it, a 40-byte header
// and the counts through the last one recorded as ZigZag LEB128 longs, a
// run of more than one zero written as its negated length.
const (
	encodingCookie           = hdrhistogram.V2EncodingCookieBase | 0x10
	compressedEncodingCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
)

// encoder is a zlib writer and buffers reused from one encoding to the next.
type encoder struct {
	payload, raw, out bytes.Buffer
	z                 *zlib.Writer
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

// encode is h.Encode(V2CompressedEncodingCookieBase) of the histogram v was
// read from, compressed at zlib's best speed rather than its best
// compression (a third of the time; Decode reads either).
func (v view) encode() string {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	e.payload.Reset()
	limit := max(v.last, 0) + 1
	var tmp [binary.MaxVarintLen64]byte
	for i := 0; i < limit; {
		c := v.counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && v.counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		e.payload.Write(tmp[:zigzag(tmp[:], c)])
	}
	e.raw.Reset()
	var hdr [40]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(encodingCookie))
	binary.BigEndian.PutUint32(hdr[4:], uint32(e.payload.Len()))
	binary.BigEndian.PutUint32(hdr[8:], 0) // the normalizing index offset: counts are stored unrotated
	binary.BigEndian.PutUint32(hdr[12:], uint32(sigFigs))
	binary.BigEndian.PutUint64(hdr[16:], uint64(lowestUs))
	binary.BigEndian.PutUint64(hdr[24:], uint64(highestUs))
	binary.BigEndian.PutUint64(hdr[32:], math.Float64bits(1)) // the integer-to-double conversion ratio
	if e.z == nil {
		e.z, _ = zlib.NewWriterLevel(&e.raw, zlib.BestSpeed) // the level is valid
	} else {
		e.z.Reset(&e.raw)
	}
	_, _ = e.z.Write(hdr[:]) // writes to a bytes.Buffer do not fail
	_, _ = e.z.Write(e.payload.Bytes())
	_ = e.z.Close()
	e.out.Reset()
	var outer [8]byte
	binary.BigEndian.PutUint32(outer[0:], uint32(compressedEncodingCookie))
	binary.BigEndian.PutUint32(outer[4:], uint32(e.raw.Len()))
	e.out.Write(outer[:])
	e.out.Write(e.raw.Bytes())
	return base64.StdEncoding.EncodeToString(e.out.Bytes())
}

// zigzag writes n as hdrhistogram's ZigZag LEB128 long (zig_zag_encode_i64:
// at most nine bytes, the ninth holding eight bits) and returns its length.
func zigzag(b []byte, n int64) int {
	u := uint64(n<<1) ^ uint64(n>>63)
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			b[i] = byte(u)
			return i + 1
		}
		b[i] = byte(u&0x7f | 0x80)
		u >>= 7
	}
	b[8] = byte(u)
	return 9
}

// Merge adds src's counts into dst (the library's Merge), unless src is empty.
func Merge(dst, src *hdrhistogram.Histogram) {
	if src.TotalCount() > 0 {
		dst.Merge(src)
	}
}
