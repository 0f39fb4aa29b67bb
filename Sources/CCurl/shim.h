#ifndef HUB_CCURL_SHIM_H
#define HUB_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these typed
// wrappers cover the option kinds the hub uses.
static inline CURLcode hub_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hub_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hub_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hub_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*hub_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode hub_curl_setopt_write_function(CURL *handle, hub_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode hub_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
typedef int (*hub_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t download_now,
                                          curl_off_t upload_total, curl_off_t upload_now);
static inline CURLcode hub_curl_setopt_xferinfo_function(CURL *handle, hub_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import.
static inline CURLcode hub_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}
// Allows only http and https, for the request and for any redirect (CURLOPT_PROTOCOLS_STR from
// 7.85; the bitmask option, deprecated since, before that).
static inline CURLcode hub_curl_allow_only_http(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}
#endif
