package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// A memstore is the store of a Service in one process: its records live
// as long as the Store does.
func Example() {
	ctx := context.Background()
	svc := lettershop.New(memstore.New())
	defer svc.Close()

	asset, err := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Welcome letter"})
	if err != nil {
		panic(err)
	}
	page, err := svc.ListAssets(ctx, "acct_1", lettershop.ListAssetsInput{})
	if err != nil {
		panic(err)
	}
	other, _ := svc.ListAssets(ctx, "acct_2", lettershop.ListAssetsInput{})
	fmt.Println(len(page.Items), page.Items[0].ID == asset.ID, len(other.Items))
	// Output: 1 true 0
}

// The Store is a storage.Storage, to use without a Service too: records
// are copied in and out, and ids are unique across accounts.
func Example_records() {
	ctx := context.Background()
	st := memstore.New()
	at := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	l := storage.Letter{ID: "ltr_1", Account: "acct_1", Status: "queued", CreatedAt: at, ModifiedAt: at,
		Metadata: []storage.Metadata{{Key: "customer", Value: "c-1001"}}}
	created, err := st.CreateLetter(ctx, l, nil)
	if err != nil {
		panic(err)
	}
	l.Metadata[0].Value = "changed after the write"
	got, _ := st.GetLetter(ctx, "acct_1", "ltr_1")
	_, err = st.CreateLetter(ctx, storage.Letter{ID: "ltr_1", Account: "acct_2"}, nil)
	_, missing := st.GetLetter(ctx, "acct_2", "ltr_1")
	fmt.Println(created.Revision, got.Metadata[0].Value)
	fmt.Println(err)
	fmt.Println(missing)
	// Output:
	// 1 c-1001
	// memstore: create letter "ltr_1": storage: already exists
	// memstore: get letter "ltr_1": storage: not found
}
