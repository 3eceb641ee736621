package render

// ForgetCheckedDocuments makes the next letter from any document check it
// again, as the first letter from a document in a new process does.
func ForgetCheckedDocuments() {
	checked.Lock()
	defer checked.Unlock()
	clear(checked.info)
	checked.order = checked.order[:0]
}
