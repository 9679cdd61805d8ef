# The apiserver image deploy/ runs (deploy/base/apiserver.yaml):
#   docker build -t kubeforge-apiserver:dev .
#   kind load docker-image kubeforge-apiserver:dev      # or push it and set the image in deploy/
# A static binary (no cgo) on distroless, as a non-root user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/apiserver ./cmd/apiserver

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/apiserver /apiserver
USER 65532:65532
ENTRYPOINT ["/apiserver"]
