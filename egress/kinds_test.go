package egress_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
