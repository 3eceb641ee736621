package httpadapter

import (
	crand "crypto/rand"
	"math/rand/v2"
	"sync"
)

// Request ids are "req_" and 26 characters of the lower-case RFC 4648
// base32 alphabet, 130 random bits, the form crypto/rand.Text had made
// them. They only need to be unique, not secret, so they come from ChaCha8
// generators seeded from crypto/rand, one per goroutine at a time, rather
// than a read of the system's random source per request.

const requestIDAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// requestIDLen is the length of an id: the prefix and 26 characters.
const requestIDLen = len("req_") + 26

var requestIDSources = sync.Pool{New: func() any {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // crypto/rand.Read never fails
	return rand.NewChaCha8(seed)
}}

func newRequestID() string {
	src := requestIDSources.Get().(*rand.ChaCha8)
	var buf [requestIDLen]byte
	copy(buf[:], "req_")
	// 12 characters of 5 bits from each 64-bit word, the last two from a third.
	for i := 4; i < requestIDLen; i += 12 {
		x := src.Uint64()
		for j := i; j < min(i+12, requestIDLen); j++ {
			buf[j] = requestIDAlphabet[x&31]
			x >>= 5
		}
	}
	requestIDSources.Put(src)
	return string(buf[:])
}
