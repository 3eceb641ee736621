package lettershop

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // decodes JPEG content
	_ "image/png"  // decodes PNG content
	"unicode/utf8"
)

// checkContent returns what is wrong with content of a MIME type, or "" when
// it can be printed.
func checkContent(mime string, data []byte) string {
	switch mime {
	case "text/html":
		if !utf8.Valid(data) {
			return "a template must be UTF-8 text"
		}
	case "image/png", "image/jpeg":
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return "the image can not be read: " + err.Error()
		}
	case "application/pdf":
		if !bytes.HasPrefix(data, []byte("%PDF-")) {
			return "the document is not a PDF"
		}
	}
	return ""
}

// RenderLetter returns the letter as it would be printed: a PDF.
func (s *Service) RenderLetter(ctx context.Context, account, id string) ([]byte, error) {
	return nil, errorf(CodeInternal, "not implemented")
}

// DownloadURL returns a fresh signed link to the letter's PDF, good for the
// download link lifetime (15 minutes by default):
// {base}/files/letters/{id}.pdf?expires=...&signature=...
func (s *Service) DownloadURL(ctx context.Context, account, id string) (string, error) {
	return "", errorf(CodeInternal, "not implemented")
}

// OpenDownload serves a signed link made by DownloadURL: file is the last
// path element ({id}.pdf), expires and signature its query parameters. An
// expired or altered link is a CodeForbidden error.
func (s *Service) OpenDownload(ctx context.Context, file, expires, signature string) ([]byte, error) {
	return nil, errorf(CodeInternal, "not implemented")
}
