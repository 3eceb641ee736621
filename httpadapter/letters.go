package httpadapter

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/lettershop/lettershop"
)

func (h *handler) letterRoutes() {
	h.handle(route{method: "GET", path: "/letters", access: scoped, scope: ScopeLettersRead, serve: h.listLetters})
	h.handle(route{method: "POST", path: "/letters", access: scoped, scope: ScopeLettersWrite, serve: h.createLetter})
	h.handle(route{method: "GET", path: "/letters/{id}", access: scoped, scope: ScopeLettersRead, serve: h.getLetter})
	h.handle(route{method: "PUT", path: "/letters/{id}", access: scoped, scope: ScopeLettersWrite, serve: h.updateLetter})
	h.handle(route{method: "POST", path: "/letters/{id}/cancel", access: scoped, scope: ScopeLettersWrite, serve: h.cancelLetter})
	h.handle(route{method: "GET", path: "/letters/{id}/download", access: scoped, scope: ScopeLettersRead, serve: h.downloadLetter})
}

func letterID(r *http.Request) pathID { return pathID{"id", "ltr_", r.PathValue("id")} }

func (h *handler) listLetters(w http.ResponseWriter, r *http.Request, c *call) {
	fields := map[string]string{}
	q := queryParams(r, fields)
	in := lettershop.ListLettersInput{
		PageRequest:        pageRequest(q, fields),
		IncludeCassDetails: boolParam(q, "includeCassDetails", fields),
		Metadata:           metadataFilter(q, fields),
	}
	if s, ok := single(q, "status", fields); ok {
		in.Status = lettershop.LetterStatus(s)
		switch {
		case s == "":
			fields["status"] = "status can not be empty"
		case slices.Contains(trackingEvents, lettershop.EventStatus(s)):
			fields["status"] = fmt.Sprintf("%q is a tracking event, not a letter status: a letter stays mailed while its tracking events come; list status=mailed and read each letter's events", s)
		}
	}
	in.ExternalID, _ = single(q, "externalId", fields)
	onlyParams(q, fields, true, "pageSize", "nextToken", "includeCassDetails", "status", "externalId")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.letters.Page(r.Context(), c.account, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeText(w, http.StatusOK, page)
}

func (h *handler) createLetter(w http.ResponseWriter, r *http.Request, c *call) {
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			var in lettershop.CreateLetterInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			return h.svc.CreateLetter(ctx, c.account, in)
		},
		ok: func(v any) response {
			l := v.(*lettershop.Letter)
			resp := letterResponse(http.StatusCreated, l)
			resp.location = c.url("/letters/" + l.ID)
			return resp
		},
		keep: func(v any) (lettershop.Outcome, error) {
			return keepLetter(v.(*lettershop.Letter), http.StatusCreated, c.url(""), true)
		},
	})
}

func (h *handler) getLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	b := bufferPool.Get().(*bytes.Buffer)
	data, err := h.letters.AppendLetter(r.Context(), b.AvailableBuffer(), c.account, id.value)
	if err != nil {
		putBuffer(b)
		h.fail(w, r, err)
		return
	}
	writeEncoded(w, b, data)
}

func (h *handler) updateLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			var in lettershop.UpdateLetterInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			return h.svc.UpdateLetter(ctx, c.account, id.value, in)
		},
		ok: func(v any) response { return letterResponse(http.StatusOK, v.(*lettershop.Letter)) },
		keep: func(v any) (lettershop.Outcome, error) {
			return keepLetter(v.(*lettershop.Letter), http.StatusOK, "", false)
		},
	})
}

// cancelLetter answers 202 with no body; the request body, if any, is
// ignored.
func (h *handler) cancelLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, _ []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			return h.svc.CancelLetter(ctx, c.account, id.value)
		},
		ok: func(any) response { return response{status: http.StatusAccepted} },
	})
}

// downloadLetter redirects to a fresh signed link to the letter's PDF,
// absolute on the address the request came to when the Service has no base
// URL, so that under a mount prefix the link keeps it.
func (h *handler) downloadLetter(w http.ResponseWriter, r *http.Request, c *call) {
	id := letterID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	u, err := h.svc.DownloadURL(r.Context(), c.account, id.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", c.absolute(u))
	w.WriteHeader(http.StatusFound)
}
