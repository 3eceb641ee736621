package lettershoptest_test

import (
	"runtime"
	"testing"
	"weak"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
)

// A test's server, its Service and what they hold are garbage once the test
// has ended, though package testing keeps the test itself: it keeps a
// finished parallel subtest, and the functions given to its Cleanup, until
// the parent ends, so a suite of parallel subtests, a server each, held
// every server it had made until its last subtest ended.
func TestServerLetGoWhenTestEnds(t *testing.T) {
	for name, start := range map[string]func(t *testing.T) *lettershop.Service{
		"New": func(t *testing.T) *lettershop.Service { return lettershoptest.New(t).Service() },
		"NewService": func(t *testing.T) *lettershop.Service {
			return lettershoptest.NewService(t).Service
		},
		"NewReceiver": func(t *testing.T) *lettershop.Service {
			srv := lettershoptest.New(t)
			srv.NewAccount().For(t).NewReceiver(client.WebhookLetterDelivered)
			return srv.Service()
		},
	} {
		t.Run(name, func(t *testing.T) {
			var ended *testing.T // kept, as package testing keeps a parallel subtest
			var svc weak.Pointer[lettershop.Service]
			t.Run("test", func(t *testing.T) {
				ended = t
				svc = weak.Make(start(t))
			})
			for range 5 {
				runtime.GC()
			}
			if svc.Value() != nil {
				t.Errorf("%s: the Service of an ended test is still reachable", name)
			}
			runtime.KeepAlive(ended)
		})
	}
}

// A receiver a Restore made for an ended test is garbage while the server
// serves on: on a server shared by parallel subtests, the receivers of
// every ended one were kept until the server's own test ended.
func TestRestoredReceiverLetGoWhenTestEnds(t *testing.T) {
	srv := lettershoptest.New(t)
	fix := srv.NewAccount()
	rcv := fix.NewReceiver(client.WebhookLetterCreated)
	snap := fix.Snapshot()
	var ended *testing.T // kept, as package testing keeps a parallel subtest
	var kept weak.Pointer[lettershoptest.Receiver]
	t.Run("test", func(t *testing.T) {
		ended = t
		acct := srv.NewAccount().For(t)
		ids := acct.Restore(snap)
		kept = weak.Make(acct.Receiver(ids[rcv.Webhook.ID]))
	})
	for range 5 {
		runtime.GC()
	}
	if kept.Value() != nil {
		t.Error("the receiver a Restore made for an ended test is still reachable")
	}
	runtime.KeepAlive(ended)
}
