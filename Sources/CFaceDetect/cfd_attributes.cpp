#include "cfd.h"
#include "shim.hpp"

#include <opencv2/calib3d.hpp>

#include <cmath>
#include <vector>

using cfd::guarded;
using cfd::invalid;

namespace {

/* A generic face in the camera's axes when it looks straight at the camera (x to the image's
   right, y down, z away from the camera), nose tip at the origin, in millimetres: eye centres
   63 mm apart and 35 mm above the nose tip, mouth corners 50 mm apart and 29 mm below it, as YuNet
   places a frontal face's landmarks relative to its eyes; the depths behind the nose tip (eyes 35,
   mouth 30) are those that agree best with MediaPipe's face mesh (docs/benchmarks.md). */
const std::vector<cv::Point3d> generic_face = {
    {-31.5, -35.0, 35.0}, {31.5, -35.0, 35.0}, {0.0, 0.0, 0.0}, {-25.0, 28.8, 30.0}, {25.0, 28.8, 30.0},
};

constexpr double degrees = 180.0 / M_PI;


} // namespace

extern "C" {

cfd_status cfd_head_pose(const double landmarks[10], double focal, double cx, double cy, double *yaw, double *pitch,
                         cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (landmarks == nullptr || yaw == nullptr || pitch == nullptr) return invalid(error, "null argument");
        if (!(focal > 0) || !std::isfinite(focal) || !std::isfinite(cx) || !std::isfinite(cy)) {
            return invalid(error, "the camera's focal length must be positive and its centre finite");
        }
        std::vector<cv::Point2d> image;
        for (int k = 0; k < 10; k += 2) {
            if (!std::isfinite(landmarks[k]) || !std::isfinite(landmarks[k + 1])) return invalid(error, "landmarks must be finite");
            image.emplace_back(landmarks[k], landmarks[k + 1]);
        }
        const double eyes = cv::norm(image[1] - image[0]);
        if (!(eyes > 0)) return invalid(error, "the eyes coincide");
        const cv::Matx33d camera(focal, 0, cx, 0, focal, cy, 0, 0, 1);
        // Start facing the camera at the distance that gives the eyes their width in the image.
        const double distance = focal * 63.0 / eyes;
        cv::Mat rvec = cv::Mat::zeros(3, 1, CV_64F);
        cv::Mat tvec = (cv::Mat_<double>(3, 1) << (image[2].x - cx) * distance / focal, (image[2].y - cy) * distance / focal,
                        distance);
        if (!cv::solvePnP(generic_face, image, camera, cv::noArray(), rvec, tvec, true, cv::SOLVEPNP_ITERATIVE) ||
            !(tvec.at<double>(2) > 0)) {
            return cfd::fail(error, CFD_ERROR_OPENCV, "no head pose puts the face in front of the camera");
        }
        cv::Matx33d rotation;
        cv::Rodrigues(rvec, rotation);
        // The direction the face looks in (the generic face's -z axis, turned), measured from the line
        // of sight: seen along the ray from the camera to the face, so that a face looking into the
        // camera has yaw and pitch 0 wherever it is in the frame.
        const cv::Vec3d turned(-rotation(0, 2), -rotation(1, 2), -rotation(2, 2));
        const cv::Vec3d ray = cv::normalize(cv::Vec3d(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2)));
        // The turn taking `ray` onto the camera's axis (0, 0, 1), about their common perpendicular.
        const cv::Vec3d axis = ray.cross(cv::Vec3d(0, 0, 1));
        const double angle = std::atan2(cv::norm(axis), ray[2]);
        cv::Matx33d toAxis = cv::Matx33d::eye();
        if (cv::norm(axis) > 1e-12) cv::Rodrigues(cv::Vec3d(cv::normalize(axis) * angle), toAxis);
        const cv::Vec3d forward = toAxis * turned;
        *yaw = std::atan2(forward[0], -forward[2]) * degrees;
        *pitch = std::atan2(-forward[1], std::hypot(forward[0], forward[2])) * degrees;
        if (!std::isfinite(*yaw) || !std::isfinite(*pitch)) return cfd::fail(error, CFD_ERROR_OPENCV, "the head pose is not finite");
        return CFD_OK;
    });
}

cfd_status cfd_sharpness(const cfd_image_view *image, double *variance, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (!cfd::valid_view(image) || variance == nullptr) return invalid(error, "empty or malformed image");
        cv::Mat grey, laplacian;
        cv::cvtColor(cfd::aperture_mat(image, cfd_rect{0, 0, image->width, image->height}), grey, cv::COLOR_BGRA2GRAY);
        cv::Laplacian(grey, laplacian, CV_64F);
        cv::Scalar mean, deviation;
        cv::meanStdDev(laplacian, mean, deviation);
        *variance = deviation[0] * deviation[0];
        return CFD_OK;
    });
}

} // extern "C"
