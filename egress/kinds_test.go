package egress_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/egress"
)

func TestHostDownAndTimedOut(t *testing.T) {
	for _, c := range []struct {
		err            error
		down, timedOut bool
	}{
		{nil, false, false},
		{errors.New("other"), false, false},
		{&egress.Error{Kind: egress.KindTimeout}, true, true},
		{fmt.Errorf("fetch: %w", &egress.Error{Kind: egress.KindUnreachable}), true, false},
		{&egress.Error{Kind: egress.KindStatus, StatusCode: 404}, false, false},
		{&egress.Error{Kind: egress.KindRefused}, false, false},
		{context.DeadlineExceeded, false, true},
	} {
		if got := egress.HostDown(c.err); got != c.down {
			t.Errorf("HostDown(%v) = %v, want %v", c.err, got, c.down)
		}
		if got := egress.TimedOut(c.err); got != c.timedOut {
			t.Errorf("TimedOut(%v) = %v, want %v", c.err, got, c.timedOut)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&egress.Error{Kind: egress.KindTimeout}, "no complete answer within 10s"},
		{fmt.Errorf("fetch: %w", context.DeadlineExceeded), "no complete answer within 10s"},
		{errors.New("the server answered 404 Not Found"), "the server answered 404 Not Found"},
	} {
		if got := egress.Describe(c.err, 10*time.Second); got != c.want {
			t.Errorf("Describe(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
