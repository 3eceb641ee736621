package httpadapter

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lettershop/lettershop"
)

// maxKeyDigests bounds the API keys whose digest is remembered. A server
// sees a handful of keys; a sandbox under a test suite a few thousand.
const maxKeyDigests = 4096

// keyDigests remembers the digest of each API key that authenticated
// recently. Service.APIKeyDigest is an HMAC under the Service's token key,
// the same for a key every time, and computing it was a fixed cost on
// every request. Only keys the Authenticator has just accepted are
// remembered, and every request still goes through the Authenticator, so
// the cache decides nothing about who may call.
type keyDigests struct {
	svc   *lettershop.Service
	cache *lru.Cache[string, string]
}

func newKeyDigests(svc *lettershop.Service) *keyDigests {
	c, err := lru.New[string, string](maxKeyDigests)
	if err != nil {
		panic("httpadapter: " + err.Error()) // only for a size below 1
	}
	return &keyDigests{svc: svc, cache: c}
}

// digest returns svc.APIKeyDigest(key) for an authenticated key.
func (k *keyDigests) digest(key string) string {
	if d, ok := k.cache.Get(key); ok {
		return d
	}
	d := k.svc.APIKeyDigest(key)
	k.cache.Add(key, d)
	return d
}
