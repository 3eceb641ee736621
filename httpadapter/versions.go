package httpadapter

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/lettershop/lettershop"
)

func (h *handler) versionRoutes() {
	const one = "/assets/{id}/versions/{versionId}"
	h.handle(route{method: "GET", path: "/assets/{id}/versions", access: scoped, scope: ScopeAssetsRead, serve: h.listVersions})
	h.handle(route{method: "POST", path: "/assets/{id}/versions", access: scoped, scope: ScopeAssetsWrite, serve: h.createVersion})
	h.handle(route{method: "GET", path: one, access: scoped, scope: ScopeAssetsRead, serve: h.getVersion})
	h.handle(route{method: "PUT", path: one, access: scoped, scope: ScopeAssetsWrite, serve: h.updateVersion})
	h.handle(route{method: "DELETE", path: one, access: scoped, scope: ScopeAssetsWrite, serve: h.deleteVersion})
	h.handle(route{method: "POST", path: one + "/publish", access: scoped, scope: ScopeAssetsWrite, serve: h.publishVersion})
	h.handle(route{method: "POST", path: one + "/archive", access: scoped, scope: ScopeAssetsWrite, serve: h.archiveVersion})
	h.handle(route{method: "POST", path: one + "/clone", access: scoped, scope: ScopeAssetsWrite, serve: h.cloneVersion})
	// A version's contentUrl: the version id right under /assets, as the
	// real service shapes it. An asset id there matches no route of its own
	// and is refused as a bad versionId.
	h.handle(route{method: "GET", path: "/assets/{versionId}/content", access: scoped, scope: ScopeAssetsRead, serve: h.getVersionContent})
}

func versionID(r *http.Request) pathID { return pathID{"versionId", "astv_", r.PathValue("versionId")} }

// shown is v as an answer shows it: its contentUrl absolute, its times to
// the second (lettershop.ShownTime).
func (c *call) shown(v *lettershop.AssetVersion) *lettershop.AssetVersion {
	v.ContentURL = c.absolute(v.ContentURL)
	v.CreatedAt, v.ModifiedAt = lettershop.ShownTime(v.CreatedAt), lettershop.ShownTime(v.ModifiedAt)
	return v
}

func (h *handler) listVersions(w http.ResponseWriter, r *http.Request, c *call) {
	aid := assetID(r)
	fields := map[string]string{}
	q := queryParams(r, fields)
	in := lettershop.ListVersionsInput{
		PageRequest:     pageRequest(q, fields),
		IncludeArchived: boolParam(q, "includeArchived", fields),
	}
	addIDProblems(fields, aid)
	onlyParams(q, fields, false, "pageSize", "nextToken", "includeArchived")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListVersions(r.Context(), c.account, aid.value, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, v := range page.Items {
		c.shown(v)
	}
	writeJSON(w, http.StatusOK, page)
}

func (h *handler) createVersion(w http.ResponseWriter, r *http.Request, c *call) {
	aid := assetID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxVersionBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			if err := checkIDs(aid); err != nil {
				return nil, err
			}
			var in lettershop.CreateVersionInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			bareType(in.Content)
			return h.svc.CreateVersion(ctx, c.account, aid.value, in)
		},
		ok: func(v any) response {
			ver := c.shown(v.(*lettershop.AssetVersion))
			resp := jsonResponse(http.StatusCreated, ver)
			resp.location = c.url("/assets/" + ver.AssetID + "/versions/" + ver.ID)
			return resp
		},
	})
}

func (h *handler) getVersion(w http.ResponseWriter, r *http.Request, c *call) {
	aid, vid := assetID(r), versionID(r)
	if err := checkIDs(aid, vid); err != nil {
		h.fail(w, r, err)
		return
	}
	v, err := h.svc.GetVersion(r.Context(), c.account, aid.value, vid.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c.shown(v))
}

// getVersionContent answers a version's content as itself, typed with its
// MIME type. Served from the API's own origin, it must never run there as
// a page: the browser is told to sandbox it (and, as every answer is, not
// to sniff it).
func (h *handler) getVersionContent(w http.ResponseWriter, r *http.Request, c *call) {
	vid := versionID(r)
	if err := checkIDs(vid); err != nil {
		h.fail(w, r, err)
		return
	}
	typ, data, err := h.svc.GetVersionContent(r.Context(), c.account, vid.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", string(typ))
	hd.Set("Content-Length", strconv.Itoa(len(data)))
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// versionChange is a mutation of one version that answers with the
// version, or with status alone when that is 202 or 204.
func (h *handler) versionChange(w http.ResponseWriter, r *http.Request, c *call, limit int64, status int,
	run func(ctx context.Context, aid, vid string, body []byte) (any, error)) {
	h.mutate(w, r, c, versionMutation(r, c, limit, status, run))
}

// versionMutation is the mutation versionChange runs.
func versionMutation(r *http.Request, c *call, limit int64, status int,
	run func(ctx context.Context, aid, vid string, body []byte) (any, error)) mutation {
	aid, vid := assetID(r), versionID(r)
	return mutation{
		limit: limit,
		op: func(ctx context.Context, body []byte) (any, error) {
			if err := checkIDs(aid, vid); err != nil {
				return nil, err
			}
			return run(ctx, aid.value, vid.value, body)
		},
		ok: func(v any) response {
			if status == http.StatusAccepted || status == http.StatusNoContent {
				return response{status: status}
			}
			return jsonResponse(status, c.shown(v.(*lettershop.AssetVersion)))
		},
	}
}

// updateVersion answers 202 with no body, as the real service does.
func (h *handler) updateVersion(w http.ResponseWriter, r *http.Request, c *call) {
	h.versionChange(w, r, c, MaxVersionBody, http.StatusAccepted, func(ctx context.Context, aid, vid string, body []byte) (any, error) {
		var in lettershop.UpdateVersionInput
		if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
			return nil, err
		}
		bareType(in.Content)
		return h.svc.UpdateVersion(ctx, c.account, aid, vid, in)
	})
}

func (h *handler) deleteVersion(w http.ResponseWriter, r *http.Request, c *call) {
	h.versionChange(w, r, c, MaxJSONBody, http.StatusNoContent, func(ctx context.Context, aid, vid string, _ []byte) (any, error) {
		return nil, h.svc.DeleteVersion(ctx, c.account, aid, vid)
	})
}

func (h *handler) publishVersion(w http.ResponseWriter, r *http.Request, c *call) {
	h.versionChange(w, r, c, MaxJSONBody, http.StatusOK, func(ctx context.Context, aid, vid string, _ []byte) (any, error) {
		return h.svc.PublishVersion(ctx, c.account, aid, vid)
	})
}

// archiveVersion answers 202 with no body, as cancelling a letter does.
func (h *handler) archiveVersion(w http.ResponseWriter, r *http.Request, c *call) {
	h.versionChange(w, r, c, MaxJSONBody, http.StatusAccepted, func(ctx context.Context, aid, vid string, _ []byte) (any, error) {
		return h.svc.ArchiveVersion(ctx, c.account, aid, vid)
	})
}

// cloneVersion takes an optional body {notes, publish}.
func (h *handler) cloneVersion(w http.ResponseWriter, r *http.Request, c *call) {
	h.versionChange(w, r, c, MaxJSONBody, http.StatusOK, func(ctx context.Context, aid, vid string, body []byte) (any, error) {
		var in lettershop.CloneVersionInput
		if len(bytes.TrimSpace(body)) > 0 {
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
		}
		return h.svc.CloneVersion(ctx, c.account, aid, vid, in)
	})
}
