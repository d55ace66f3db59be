module svc.dev/sdk-go

go 1.19
