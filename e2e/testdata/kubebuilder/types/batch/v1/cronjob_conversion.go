package v1

// Hub marks this version as the one the others convert through.
func (*CronJob) Hub() {}
