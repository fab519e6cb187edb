#include "cmqtt.h"

#include <errno.h>
#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmqtt_client {
    struct mosquitto *mosquitto;
    cmqtt_callback callback;
    void *context;
    int keepalive_seconds;
    int last_errno;
};

static void on_connect(struct mosquitto *mosquitto, void *object, int code) {
    (void)mosquitto;
    cmqtt_client *client = object;
    client->callback(client->context, CMQTT_EVENT_CONNECTED, code, NULL, NULL, 0);
}

static void on_disconnect(struct mosquitto *mosquitto, void *object, int code) {
    (void)mosquitto;
    cmqtt_client *client = object;
    client->callback(client->context, CMQTT_EVENT_DISCONNECTED, code, NULL, NULL, 0);
}

static void on_publish(struct mosquitto *mosquitto, void *object, int message_id) {
    (void)mosquitto;
    cmqtt_client *client = object;
    client->callback(client->context, CMQTT_EVENT_PUBLISHED, message_id, NULL, NULL, 0);
}

static void on_message(struct mosquitto *mosquitto, void *object, const struct mosquitto_message *message) {
    (void)mosquitto;
    cmqtt_client *client = object;
    client->callback(client->context, CMQTT_EVENT_MESSAGE, 0, message->topic, message->payload, message->payloadlen);
}

static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void initialise_library(void) {
    mosquitto_lib_init();
}

static cmqtt_client *fail(cmqtt_client *client, int status, const char *what, char *message, size_t capacity) {
    if (message && capacity > 0) {
        snprintf(message, capacity, "%s: %s", what, mosquitto_strerror(status));
    }
    cmqtt_destroy(client);
    return NULL;
}

cmqtt_client *cmqtt_create(const cmqtt_settings *settings, cmqtt_callback callback, void *context,
                           char *message, size_t message_capacity) {
    pthread_once(&library_once, initialise_library);
    cmqtt_client *client = calloc(1, sizeof *client);
    if (!client) {
        snprintf(message, message_capacity, "out of memory");
        return NULL;
    }
    client->callback = callback;
    client->context = context;
    client->keepalive_seconds = settings->keepalive_seconds > 0 ? settings->keepalive_seconds : 30;
    client->mosquitto = mosquitto_new(settings->client_id, true, client);
    if (!client->mosquitto) {
        snprintf(message, message_capacity, "cannot make an MQTT client (out of memory, or a bad client id)");
        free(client);
        return NULL;
    }
    /* Publishing comes from other threads than the loop's. */
    int status = mosquitto_threaded_set(client->mosquitto, true);
    if (status != MOSQ_ERR_SUCCESS) return fail(client, status, "threads", message, message_capacity);
    /* MQTT 3.1.1: what mosquitto, Home Assistant's broker and most others speak. */
    status = mosquitto_int_option(client->mosquitto, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
    if (status != MOSQ_ERR_SUCCESS) return fail(client, status, "protocol", message, message_capacity);
    if (settings->username || settings->password) {
        status = mosquitto_username_pw_set(client->mosquitto, settings->username, settings->password);
        if (status != MOSQ_ERR_SUCCESS) return fail(client, status, "credentials", message, message_capacity);
    }
    if (settings->tls) {
        status = mosquitto_tls_set(client->mosquitto, settings->ca_file, settings->ca_file ? NULL : "/etc/ssl/certs",
                                   NULL, NULL, NULL);
        if (status != MOSQ_ERR_SUCCESS) return fail(client, status, "TLS", message, message_capacity);
    }
    if (settings->will_topic) {
        status = mosquitto_will_set(client->mosquitto, settings->will_topic, (int)strlen(settings->will_payload),
                                    settings->will_payload, 1, true);
        if (status != MOSQ_ERR_SUCCESS) return fail(client, status, "last will", message, message_capacity);
    }
    mosquitto_connect_callback_set(client->mosquitto, on_connect);
    mosquitto_disconnect_callback_set(client->mosquitto, on_disconnect);
    mosquitto_publish_callback_set(client->mosquitto, on_publish);
    mosquitto_message_callback_set(client->mosquitto, on_message);
    return client;
}

void cmqtt_destroy(cmqtt_client *client) {
    if (!client) return;
    if (client->mosquitto) mosquitto_destroy(client->mosquitto);
    free(client);
}

int cmqtt_connect(cmqtt_client *client, const char *host, int32_t port) {
    int status = mosquitto_connect_async(client->mosquitto, host, port, client->keepalive_seconds);
    client->last_errno = errno;
    return status;
}

int cmqtt_loop(cmqtt_client *client, int32_t timeout_ms) {
    int status = mosquitto_loop(client->mosquitto, timeout_ms, 1);
    client->last_errno = errno;
    return status;
}

int cmqtt_errno(const cmqtt_client *client) {
    return client->last_errno;
}

int cmqtt_disconnect(cmqtt_client *client) {
    return mosquitto_disconnect(client->mosquitto);
}

int cmqtt_publish(cmqtt_client *client, const char *topic, const uint8_t *payload, int32_t payload_length,
                  int32_t qos, bool retain, int32_t *message_id) {
    int id = 0;
    int status = mosquitto_publish(client->mosquitto, &id, topic, payload_length, payload, qos, retain);
    if (message_id) *message_id = id;
    return status;
}

bool cmqtt_status_is_disconnected(int status) {
    return status == MOSQ_ERR_NO_CONN || status == MOSQ_ERR_CONN_LOST;
}

int cmqtt_subscribe(cmqtt_client *client, const char *topic, int32_t qos) {
    return mosquitto_subscribe(client->mosquitto, NULL, topic, qos);
}

const char *cmqtt_describe(int status) {
    return mosquitto_strerror(status);
}

const char *cmqtt_describe_refusal(int code) {
    return mosquitto_connack_string(code);
}

int cmqtt_status_tls(void) {
    return MOSQ_ERR_TLS;
}

int cmqtt_status_keepalive(void) {
    return MOSQ_ERR_KEEPALIVE;
}

int cmqtt_status_errno(void) {
    return MOSQ_ERR_ERRNO;
}
