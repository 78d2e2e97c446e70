resource "terraform_data" "a" {
  input = {
    "has space" = "v"
    "9digit"    = "v"
    "dash-ok"   = "v"
    "ünï"       = "v"
    html        = "<b>&amp;</b>"
    ctrl        = "a\u0001b"
    trailing_nl = "single line\n"
    crlf        = "a\r\nb"
    brackets    = "[not json"
    jsonish     = "{\"a\": [1, {\"b\": null}], \"c\": \"\"}"
    empty_json  = "{}"
    emoji       = "😀"
    tabs        = "a\tb"
  }
}
