package lettershop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/storage"
)

// MaxUploadContent is the largest content UploadVersionContent takes, in
// bytes: 10 MiB, for PDF documents too large to send inline.
const MaxUploadContent = 10 << 20

// uploadInput is what identifies an upload for idempotency: the content by
// its hash, so a retried upload is recognised without keeping its bytes.
type uploadInput struct {
	Type   ContentType `json:"type"`
	SHA256 string      `json:"sha256"`
	Length int         `json:"length"`
}

// UploadVersionContent replaces the content of a draft version by data of
// a MIME type the asset holds, up to MaxUploadContent bytes: the way to
// store content larger than inline content (MaxInlineContent). The content
// is checked as inline content is (a PDF document when it is stored, not
// when a letter is mailed); an error names content.content or content.type.
// A version that is not a draft is a conflict.
func (s *Service) UploadVersionContent(ctx context.Context, account, assetID, versionID string, mime ContentType, data []byte) (*AssetVersion, error) {
	sum := sha256.Sum256(data)
	in := uploadInput{Type: mime, SHA256: hex.EncodeToString(sum[:]), Length: len(data)}
	return idempotent(ctx, s, account, "uploadVersionContent:"+assetID+"/"+versionID, in, func(ctx context.Context) (*AssetVersion, error) {
		return s.changeVersion(ctx, account, assetID, versionID, func(a *Asset, w *assetChange, v *AssetVersion) error {
			f := fieldErrors{}
			switch {
			case !slices.Contains(contentTypes[a.Type], mime):
				f.add("content.type", "%s, got %s", holdsMessage(a.Type), echo.Quote(string(mime)))
			case len(data) == 0:
				f.add("content.content", "the content can not be empty")
			case len(data) > MaxUploadContent:
				f.add("content.content", "uploaded content is at most %d bytes, got %d", MaxUploadContent, len(data))
			default:
				if msg, err := checkContent(ctx, string(mime), data, v.VariableDefinitions); err != nil {
					return err
				} else if msg != "" {
					f.add("content.content", "%s", msg)
				}
			}
			if err := f.err(); err != nil {
				return err
			}
			if v.Status != VersionDraft {
				return errorf(CodeConflict, "version %s is %s: only a draft's content can change; clone it to make a new draft", v.ID, v.Status)
			}
			setContent(v, ContentInline, mime, data)
			w.content = append(w.content, storage.Content{Account: account, Hash: v.contentHash, Data: data})
			return nil
		})
	})
}
