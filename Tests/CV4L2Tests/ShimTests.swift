import CV4L2
import Glibc
import Testing

struct CV4L2ShimTests {
    @Test func requestCodesAreTheKernelABIs() {
        // _IOR('V', 0, struct v4l2_capability): read, 104 bytes, type 'V', number 0.
        #expect(CV4L2_VIDIOC_QUERYCAP == 0x8068_5600)
        #expect(CV4L2_VIDIOC_STREAMON == 0x4004_5612)
        #expect(CV4L2_VIDIOC_DQBUF == 0xC058_5611)
        #expect(CV4L2_PIX_FMT_YUYV == 0x5659_5559)  // "YUYV" little-endian
        #expect(MemoryLayout<v4l2_buffer>.size == 88)
    }

    @Test func ioctlOnSomethingThatIsNoCameraFailsWithENOTTY() {
        let descriptor = open("/dev/null", O_RDWR)
        #expect(descriptor >= 0)
        defer { _ = cv4l2_close(descriptor) }
        var capability = v4l2_capability()
        #expect(cv4l2_ioctl(descriptor, CV4L2_VIDIOC_QUERYCAP, &capability) == -1)
        #expect(errno == ENOTTY)
    }
}
