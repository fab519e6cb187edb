/*
 * cmqtt: an MQTT client on libmosquitto, for live --mqtt.
 *
 * The caller runs the network loop on a thread of its own (cmqtt_loop) and
 * may publish from any other thread. libmosquitto's callbacks reach the
 * caller through one function, on the loop's thread, so that no libmosquitto
 * type crosses into Swift. Functions return a cmqtt status: 0 for success,
 * else libmosquitto's error number, which cmqtt_describe turns into words.
 */
#ifndef CMQTT_H
#define CMQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cmqtt_client cmqtt_client;

typedef enum {
    /* The broker answered CONNECT: `code` is 0 for accepted, else the CONNACK return code. */
    CMQTT_EVENT_CONNECTED = 0,
    /* The connection ended: `code` is 0 when the client asked for it. */
    CMQTT_EVENT_DISCONNECTED = 1,
    /* A QoS 1 message was acknowledged: `code` is its message id. */
    CMQTT_EVENT_PUBLISHED = 2,
    /* A message arrived on a subscribed topic. */
    CMQTT_EVENT_MESSAGE = 3
} cmqtt_event;

typedef void (*cmqtt_callback)(void *context, cmqtt_event event, int code, const char *topic,
                               const uint8_t *payload, int32_t payload_length);

/* The settings of a connection, fixed for the client's life. NULL strings are unset. */
typedef struct {
    const char *client_id;
    const char *username;
    const char *password;
    /* TLS when true: checked against ca_file, or the system's certificates in /etc/ssl/certs. */
    bool tls;
    const char *ca_file;
    /* The last will: published retained by the broker when the connection is lost uncleanly. */
    const char *will_topic;
    const char *will_payload;
    int32_t keepalive_seconds;
} cmqtt_settings;

/* NULL on failure, with a reason in `message`. */
cmqtt_client *cmqtt_create(const cmqtt_settings *settings, cmqtt_callback callback, void *context,
                           char *message, size_t message_capacity);
void cmqtt_destroy(cmqtt_client *client);

/* Starts connecting without waiting for the broker (the name is looked up first, which may wait). */
int cmqtt_connect(cmqtt_client *client, const char *host, int32_t port);
/* Runs the network for up to `timeout_ms`: reads, writes, keepalive, callbacks. */
int cmqtt_loop(cmqtt_client *client, int32_t timeout_ms);
int cmqtt_disconnect(cmqtt_client *client);

/* Queues a message; `message_id` receives its id (matched by CMQTT_EVENT_PUBLISHED for QoS 1). */
int cmqtt_publish(cmqtt_client *client, const char *topic, const uint8_t *payload, int32_t payload_length,
                  int32_t qos, bool retain, int32_t *message_id);
int cmqtt_subscribe(cmqtt_client *client, const char *topic, int32_t qos);
/* Whether a publish that failed with `status` failed for the connection (it may go on the next one),
   rather than for good (a topic or payload libmosquitto will never take). */
bool cmqtt_status_is_disconnected(int status);

/* Words for a status, and for a CONNACK code. */
const char *cmqtt_describe(int status);
const char *cmqtt_describe_refusal(int code);
/* For a status that says errno holds the reason: errno as the last cmqtt_connect or cmqtt_loop left it. */
int cmqtt_errno(const cmqtt_client *client);
int cmqtt_status_errno(void);
/* A failed TLS handshake; a broker silent for the keepalive (no CONNACK, no PINGRESP). */
int cmqtt_status_tls(void);
int cmqtt_status_keepalive(void);

#ifdef __cplusplus
}
#endif

#endif
