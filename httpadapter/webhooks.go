package httpadapter

import (
	"context"
	"net/http"

	"github.com/lettershop/lettershop"
)

func (h *handler) webhookRoutes() {
	h.handle(route{method: "GET", path: "/webhooks", access: scoped, scope: ScopeWebhooksRead, serve: h.listWebhooks})
	h.handle(route{method: "POST", path: "/webhooks", access: scoped, scope: ScopeWebhooksWrite, serve: h.createWebhook})
	h.handle(route{method: "GET", path: "/webhooks/{id}", access: scoped, scope: ScopeWebhooksRead, serve: h.getWebhook})
	h.handle(route{method: "PUT", path: "/webhooks/{id}", access: scoped, scope: ScopeWebhooksWrite, serve: h.updateWebhook})
	h.handle(route{method: "DELETE", path: "/webhooks/{id}", access: scoped, scope: ScopeWebhooksWrite, serve: h.deleteWebhook})
	h.handle(route{method: "GET", path: "/webhooks/{id}/deliveries", access: scoped, scope: ScopeWebhooksRead, serve: h.listDeliveries})
	h.handle(route{method: "POST", path: "/webhooks/{id}/deliveries/{deliveryId}/retry", access: scoped, scope: ScopeWebhooksWrite, serve: h.retryDelivery})
}

func webhookID(r *http.Request) pathID { return pathID{"id", "wh_", r.PathValue("id")} }

func deliveryID(r *http.Request) pathID {
	return pathID{"deliveryId", "dlv_", r.PathValue("deliveryId")}
}

func (h *handler) listWebhooks(w http.ResponseWriter, r *http.Request, c *call) {
	fields := map[string]string{}
	q := queryParams(r, fields)
	in := lettershop.ListWebhooksInput{PageRequest: pageRequest(q, fields)}
	onlyParams(q, fields, false, "pageSize", "nextToken")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListWebhooks(r.Context(), c.account, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

func (h *handler) createWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			var in lettershop.CreateWebhookInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			// A test chooses its webhook's secret, to build its receiver
			// first; a live key's secret is always the server's.
			if in.Secret != "" && !c.test {
				return nil, invalid("secret", "is made by the server; only a test key (%s...) may choose it", SandboxKeyPrefix)
			}
			return h.svc.CreateWebhook(ctx, c.account, in)
		},
		ok: func(v any) response {
			wh := v.(*lettershop.Webhook)
			resp := jsonResponse(http.StatusCreated, wh)
			resp.location = c.url("/webhooks/" + wh.ID)
			return resp
		},
		// The secret is shown once: a replay answers as GET does, without it.
		keep: func(v any) (lettershop.Outcome, error) {
			wh := *v.(*lettershop.Webhook)
			wh.Secret = ""
			resp := jsonResponse(http.StatusCreated, &wh)
			resp.location = c.url("/webhooks/" + wh.ID)
			return &answer{resp}, nil
		},
	})
}

func (h *handler) getWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	id := webhookID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	wh, err := h.svc.GetWebhook(r.Context(), c.account, id.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wh)
}

func (h *handler) updateWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	id := webhookID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			var in lettershop.UpdateWebhookInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			return h.svc.UpdateWebhook(ctx, c.account, id.value, in)
		},
		ok: func(v any) response { return jsonResponse(http.StatusOK, v.(*lettershop.Webhook)) },
	})
}

func (h *handler) deleteWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	id := webhookID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, _ []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			return nil, h.svc.DeleteWebhook(ctx, c.account, id.value)
		},
		ok: func(any) response { return response{status: http.StatusNoContent} },
	})
}

func (h *handler) listDeliveries(w http.ResponseWriter, r *http.Request, c *call) {
	id := webhookID(r)
	fields := map[string]string{}
	addIDProblems(fields, id)
	q := queryParams(r, fields)
	in := lettershop.ListDeliveriesInput{PageRequest: pageRequest(q, fields)}
	onlyParams(q, fields, false, "pageSize", "nextToken")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListDeliveries(r.Context(), c.account, id.value, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// retryDelivery asks for a delivery to be attempted again now; the attempt
// is made after the answer, 202.
func (h *handler) retryDelivery(w http.ResponseWriter, r *http.Request, c *call) {
	id, did := webhookID(r), deliveryID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, _ []byte) (any, error) {
			if err := checkIDs(id, did); err != nil {
				return nil, err
			}
			return h.svc.RetryDelivery(ctx, c.account, id.value, did.value)
		},
		ok: func(v any) response { return jsonResponse(http.StatusAccepted, v.(*lettershop.WebhookDelivery)) },
	})
}
