#!/usr/bin/python3
"""An RTSP server for the tests, from Debian's GStreamer RTSP server library (gir1.2-gst-rtsp-server-1.0):
serves an MJPEG AVI at rtsp://127.0.0.1:PORT/clip, printing PORT (a free one) on its first line.

The frames are decoded and encoded again as baseline JPEG (quality 95), the kind RTP's JPEG payload
(RFC 2435) carries; the clip's own JPEGs are not of that kind.

  rtsp_server.py CLIP.avi
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402 (after require_version)

Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service("0")
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(f"( filesrc location={sys.argv[1]} ! avidemux ! jpegdec ! jpegenc quality=95 ! rtpjpegpay name=pay0 pt=26 )")
server.get_mount_points().add_factory("/clip", factory)
server.attach(None)
print(server.get_bound_port(), flush=True)
GLib.MainLoop().run()
