// Package vlq writes and reads lists of integers as source maps do: each
// number a few characters of base64 (RFC 4648's alphabet), five bits a
// character with a continuation bit, the sign in the lowest bit of the
// first. A list of small numbers costs about a byte each and is a valid
// JSON string with no escaping, which is why the store uses it for the
// lengths and time steps of a streamed answer (docs/STORAGE.md).
//
// The rules: Append never fails; Reader reports a truncated or foreign
// character as an error and never panics on any input.
package vlq

import "errors"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decode maps a byte to its 6-bit value, or 0xff for a byte outside the
// alphabet.
var decode = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// Append appends v to b.
func Append(b []byte, v int64) []byte {
	var u uint64
	switch {
	case v == -1<<63:
		u = 1 // no positive counterpart: written as "minus zero"
	case v < 0:
		u = uint64(-v)<<1 | 1
	default:
		u = uint64(v) << 1
	}
	for {
		digit := u & 31
		u >>= 5
		if u != 0 {
			digit |= 32
		}
		b = append(b, alphabet[digit])
		if u == 0 {
			return b
		}
	}
}

// ErrBad is the error of a list that does not read.
var ErrBad = errors.New("a number list does not read")

// Reader reads the numbers of a list in order.
type Reader struct {
	s   string
	pos int
}

// NewReader reads s.
func NewReader(s string) *Reader { return &Reader{s: s} }

// More reports whether a number is left.
func (r *Reader) More() bool { return r.pos < len(r.s) }

// Next returns the next number.
func (r *Reader) Next() (int64, error) {
	var u uint64
	for shift := uint(0); ; shift += 5 {
		if r.pos >= len(r.s) || shift > 63 {
			return 0, ErrBad
		}
		d := decode[r.s[r.pos]]
		r.pos++
		if d == 0xff {
			return 0, ErrBad
		}
		u |= uint64(d&31) << shift
		if d&32 == 0 {
			break
		}
	}
	if u&1 == 0 {
		return int64(u >> 1), nil
	}
	if u == 1 {
		return -1 << 63, nil
	}
	return -int64(u >> 1), nil
}

// Len is how many characters Append writes for v.
func Len(v int64) int {
	var u uint64
	switch {
	case v == -1<<63:
		return 1
	case v < 0:
		u = uint64(-v)<<1 | 1
	default:
		u = uint64(v) << 1
	}
	n := 1
	for u >>= 5; u != 0; u >>= 5 {
		n++
	}
	return n
}
