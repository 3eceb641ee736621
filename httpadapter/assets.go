package httpadapter

import (
	"context"
	"net/http"

	"github.com/lettershop/lettershop"
)

func (h *handler) assetRoutes() {
	h.handle(route{method: "GET", path: "/assets", access: scoped, scope: ScopeAssetsRead, serve: h.listAssets})
	h.handle(route{method: "POST", path: "/assets", access: scoped, scope: ScopeAssetsWrite, serve: h.createAsset})
	h.handle(route{method: "GET", path: "/assets/{id}", access: scoped, scope: ScopeAssetsRead, serve: h.getAsset})
	h.handle(route{method: "PUT", path: "/assets/{id}", access: scoped, scope: ScopeAssetsWrite, serve: h.updateAsset})
	h.handle(route{method: "DELETE", path: "/assets/{id}", access: scoped, scope: ScopeAssetsWrite, serve: h.deleteAsset})
}

func assetID(r *http.Request) pathID { return pathID{"id", "ast_", r.PathValue("id")} }

func (h *handler) listAssets(w http.ResponseWriter, r *http.Request, c *call) {
	fields := map[string]string{}
	q := queryParams(r, fields)
	in := lettershop.ListAssetsInput{PageRequest: pageRequest(q, fields), Metadata: metadataFilter(q, fields)}
	onlyParams(q, fields, true, "pageSize", "nextToken")
	if err := invalidFields(fields); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListAssets(r.Context(), c.account, in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

func (h *handler) createAsset(w http.ResponseWriter, r *http.Request, c *call) {
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			var in lettershop.CreateAssetInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			return h.svc.CreateAsset(ctx, c.account, in)
		},
		ok: func(v any) response {
			a := v.(*lettershop.Asset)
			resp := jsonResponse(http.StatusCreated, a)
			resp.location = c.url("/assets/" + a.ID)
			return resp
		},
	})
}

func (h *handler) getAsset(w http.ResponseWriter, r *http.Request, c *call) {
	id := assetID(r)
	if err := checkIDs(id); err != nil {
		h.fail(w, r, err)
		return
	}
	a, err := h.svc.GetAsset(r.Context(), c.account, id.value)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

func (h *handler) updateAsset(w http.ResponseWriter, r *http.Request, c *call) {
	id := assetID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, body []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			var in lettershop.UpdateAssetInput
			if err := decodeInput(body, &in, h.inputProblems(c)); err != nil {
				return nil, err
			}
			return h.svc.UpdateAsset(ctx, c.account, id.value, in)
		},
		ok: func(v any) response { return jsonResponse(http.StatusOK, v.(*lettershop.Asset)) },
	})
}

func (h *handler) deleteAsset(w http.ResponseWriter, r *http.Request, c *call) {
	id := assetID(r)
	h.mutate(w, r, c, mutation{
		limit: MaxJSONBody,
		op: func(ctx context.Context, _ []byte) (any, error) {
			if err := checkIDs(id); err != nil {
				return nil, err
			}
			return nil, h.svc.DeleteAsset(ctx, c.account, id.value)
		},
		ok: func(any) response { return response{status: http.StatusNoContent} },
	})
}
