package httpadapter_test

import (
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/httpadapter"
)

// BenchmarkAuthThrottle is what the throttle adds to a request with a
// valid key, for an address that never failed (every client's case) and
// for one that failed lately, whose accepted keys are noted. Compare with
// BenchmarkServe/get, a whole request, in the same run.
//
//	go test ./httpadapter -run '^$' -bench 'AuthThrottle|Serve/get' -benchmem
func BenchmarkAuthThrottle(b *testing.B) {
	t := httpadapter.NewAuthThrottle(httpadapter.DefaultAuthFailures, httpadapter.DefaultAuthFailuresPer, clock.NewMock())
	valid := func(key string) (httpadapter.Principal, error) {
		if key != keyA {
			return httpadapter.Principal{}, httpadapter.ErrUnknownKey
		}
		return httpadapter.Principal{Account: "acct"}, nil
	}
	if _, _, err := t.Authenticate("10.0.0.2", "sk_test_wrong", valid); err == nil {
		b.Fatal("a wrong key accepted")
	}
	for _, addr := range []string{"10.0.0.1", "10.0.0.2"} {
		name := map[string]string{"10.0.0.1": "never-failed", "10.0.0.2": "failed-lately"}[addr]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := t.Authenticate(addr, keyA, valid); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
