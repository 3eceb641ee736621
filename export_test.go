package lettershop

// DeliveriesWoken reports whether the loop that posts webhook events was
// woken and has not yet looked for due deliveries.
func DeliveriesWoken(s *Service) bool { return len(s.deliveries.wakeCh) > 0 }
