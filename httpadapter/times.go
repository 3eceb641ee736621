package httpadapter

import (
	"time"

	"github.com/lettershop/lettershop"
)

// shownTimes is v with its times as answers show them (lettershop.ShownTime)
// where the general encoder writes v: an asset, a webhook or a delivery,
// alone or in a page. Letters are package wire's, which shows their times
// so; versions go through (*call).shown. The service's own value is left as
// it is: each shown value is a copy.
func shownTimes(v any) any {
	switch x := v.(type) {
	case *lettershop.Asset:
		return shownAsset(x)
	case lettershop.Page[*lettershop.Asset]:
		return shownPage(x, shownAsset)
	case *lettershop.Webhook:
		return shownWebhook(x)
	case lettershop.Page[*lettershop.Webhook]:
		return shownPage(x, shownWebhook)
	case *lettershop.WebhookDelivery:
		return shownDelivery(x)
	case lettershop.Page[*lettershop.WebhookDelivery]:
		return shownPage(x, shownDelivery)
	}
	return v
}

func shownPage[T any](p lettershop.Page[T], shown func(T) T) lettershop.Page[T] {
	items := make([]T, len(p.Items))
	for i, it := range p.Items {
		items[i] = shown(it)
	}
	p.Items = items
	return p
}

func shownAsset(a *lettershop.Asset) *lettershop.Asset {
	c := *a
	c.CreatedAt, c.ModifiedAt = lettershop.ShownTime(a.CreatedAt), lettershop.ShownTime(a.ModifiedAt)
	return &c
}

func shownWebhook(w *lettershop.Webhook) *lettershop.Webhook {
	c := *w
	c.CreatedAt, c.ModifiedAt = lettershop.ShownTime(w.CreatedAt), lettershop.ShownTime(w.ModifiedAt)
	return &c
}

func shownDelivery(d *lettershop.WebhookDelivery) *lettershop.WebhookDelivery {
	c := *d
	c.CreatedAt = lettershop.ShownTime(d.CreatedAt)
	c.LastAttemptAt, c.NextAttemptAt = shownTimePtr(d.LastAttemptAt), shownTimePtr(d.NextAttemptAt)
	return &c
}

func shownTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	s := lettershop.ShownTime(*t)
	return &s
}
