package inbox

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
)

const webhookPageSize = 25

// webhooksView is the webhooks page's data.
type webhooksView struct {
	Webhooks []*lettershop.Webhook
	// Last holds each webhook's newest delivery, by webhook id: whether
	// its events reach it shows in the list.
	Last  map[string]*lettershop.WebhookDelivery
	Next  string
	First string
}

// webhooks is the table of the account's webhooks, newest first.
func (h *handler) webhooks(w http.ResponseWriter, s *session) {
	token := s.r.URL.Query().Get("token")
	pg, err := h.svc.ListWebhooks(s.ctx(), s.account(), lettershop.ListWebhooksInput{
		PageRequest: lettershop.PageRequest{PageSize: webhookPageSize, NextToken: token}})
	if err != nil {
		h.fail(w, s, err)
		return
	}
	v := &webhooksView{Webhooks: pg.Items, Last: map[string]*lettershop.WebhookDelivery{}}
	for _, wh := range pg.Items {
		last, err := h.svc.ListDeliveries(s.ctx(), s.account(), wh.ID, lettershop.ListDeliveriesInput{PageRequest: lettershop.PageRequest{PageSize: 1}})
		if err != nil {
			h.fail(w, s, err)
			return
		}
		if len(last.Items) > 0 {
			v.Last[wh.ID] = last.Items[0]
		}
	}
	if pg.NextToken != "" {
		v.Next = s.base + "/webhooks?" + url.Values{"token": {pg.NextToken}}.Encode()
	}
	if token != "" {
		v.First = s.base + "/webhooks"
	}
	p := h.newPage(s, "Webhooks")
	p.Nav = "webhooks"
	p.Data = v
	h.render(w, http.StatusOK, "webhooks.html", p)
}

// webhookView is a webhook page's data: the webhook and a page of its
// deliveries, and whether the visitor may retry them.
type webhookView struct {
	Webhook    *lettershop.Webhook
	Deliveries []*lettershop.WebhookDelivery
	CanRetry   bool
	Next       string
	First      string
}

// webhook is one webhook and its deliveries, newest first.
func (h *handler) webhook(w http.ResponseWriter, s *session) {
	h.showWebhook(w, s, http.StatusOK, nil)
}

// showWebhook shows the webhook page with status, and the error of an
// action the page refused (a conflict), if any.
func (h *handler) showWebhook(w http.ResponseWriter, s *session, status int, actionErr error) {
	wh, err := h.svc.GetWebhook(s.ctx(), s.account(), s.r.PathValue("id"))
	if err != nil {
		h.fail(w, s, err)
		return
	}
	token := ""
	if s.r.Method == http.MethodGet {
		token = s.r.URL.Query().Get("token")
	}
	pg, err := h.svc.ListDeliveries(s.ctx(), s.account(), wh.ID, lettershop.ListDeliveriesInput{
		PageRequest: lettershop.PageRequest{PageSize: webhookPageSize, NextToken: token}})
	if err != nil {
		h.fail(w, s, err)
		return
	}
	v := &webhookView{Webhook: wh, Deliveries: pg.Items, CanRetry: s.can(httpadapter.ScopeWebhooksWrite)}
	path := s.base + "/webhooks/" + url.PathEscape(wh.ID)
	if pg.NextToken != "" {
		v.Next = path + "?" + url.Values{"token": {pg.NextToken}}.Encode()
	}
	if token != "" {
		v.First = path
	}
	p := h.newPage(s, "Webhook "+wh.URL)
	p.Nav = "webhooks"
	p.Data = v
	var e *lettershop.Error
	if errors.As(actionErr, &e) {
		p.Error = errorMessage(e)
	}
	h.render(w, status, "webhook.html", p)
}

// retry asks for a delivery to be attempted again now.
func (h *handler) retry(w http.ResponseWriter, s *session) {
	id := s.r.PathValue("id")
	if _, err := h.svc.RetryDelivery(s.ctx(), s.account(), id, s.r.PathValue("did")); err != nil {
		if lettershop.ErrorCode(err) == lettershop.CodeConflict {
			h.showWebhook(w, s, http.StatusConflict, err)
			return
		}
		h.fail(w, s, err)
		return
	}
	http.Redirect(w, s.r, s.base+"/webhooks/"+url.PathEscape(id)+"?done=retried", http.StatusSeeOther)
}
