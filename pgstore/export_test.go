package pgstore

// Exported for the tests that check which indexes the store's queries use.
var (
	ListLettersQuery     = listLettersQuery
	DueLettersSQL        = dueLettersSQL
	AccountDueLettersSQL = accountDueLettersSQL
	ExceptDueLettersSQL  = exceptDueLettersSQL
)
