package lettersnap

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"
)

// dict primes the compression of an encoded snapshot: a letter's
// JSON, whose names and common values a snapshot's encoding then refers
// to rather than spells (some 600 bytes for a letter of 2.5 KB, where
// compressing without it leaves 1.2 KB). It is part of the form: stored
// snapshots are read with it, so it never changes; another would be
// another form, with a magic of its own.
const dict = `{"id":"ltr_01kjqh0cc0abyzr1s1gch2evrn","status":"queued","createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z","dueAt":"2026-03-02T15:05:00Z","revision":1,"base":"https://","doc":{"life":{"stage":"queued","events":1,"from":{"city":"SPRINGFIELD","state":"IL","zip":"62701"},"to":{"city":"CHICAGO","state":"IL","zip":"60601"}},"sender":{"address":{"addressLine1":"100 Main St","lastLine":"Springfield, IL 62701"},"organization":"Acme Corp","addressComponents":{"cassType":"none","city":"Springfield","state":"IL","zipCode":"62701"}},"recipient":{"address":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"},"individual":{"fullName":"Jane Doe","firstName":"Jane","lastName":"Doe"},"addressComponents":{"cassType":"none","city":"Chicago","state":"IL","zipCode":"60601"}},"content":{"type":"asset","assetId":"ast_01kjqh0cc0abyzr1s1g9jmy5hz","assetVersionId":"astv_01kjqh0cc0abyzr1s1gbemmsvc"},"useType":"transactional","variables":[{"name":"name","value":"Marge"}],"options":{"print":{"color":false},"mail":{"service":"firstClass","extraServices":[]},"variableHandling":{"validationScope":"asset"},"addressProcessing":{"cassSender":null,"cassRecipient":null,"ncoaRecipient":"none"},"deliverabilityThreshold":"normal","deliverabilityValues":null},"snapshot":{"hash":"b46e7ceff12b61bd93330a720254fab2663170d001e595995729c9a5f522cc92","type":"text/html","definitions":[{"name":"name","type":"value","behavior":"required","allowEmpty":false},{"name":"order","type":"value","behavior":"optional","allowEmpty":false}],"merge":[{"name":"name","value":"Marge"}]},"events":[{"id":"evt_01kjqh0cc0yy92aepzww4h7ywk","createdAt":"2026-03-02T15:00:00Z","modifiedAt":"2026-03-02T15:00:00Z","timestamp":"2026-03-02T15:00:00Z","type":"status","status":"queued","description":"Letter received","actionRequired":false}]}}`

// compressors holds flate writers: each holds some 600 KB of tables.
var compressors = sync.Pool{New: func() any {
	w, _ := flate.NewWriterDict(nil, flate.BestCompression, []byte(dict))
	return w
}}

// deflate appends data compressed to dst.
func deflate(dst, data []byte) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	w := compressors.Get().(*flate.Writer)
	defer compressors.Put(w)
	w.Reset(b)
	if _, err := w.Write(data); err != nil {
		return dst, err
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}

// maxInflated bounds what a stored snapshot inflates to.
const maxInflated = 4 << 20

func inflate(data []byte) ([]byte, error) {
	r := flate.NewReaderDict(bytes.NewReader(data), []byte(dict))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxInflated+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInflated {
		return nil, errors.New("inflates to more than 4 MB")
	}
	return b, nil
}
