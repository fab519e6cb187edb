/// Faces cut out (`--crops`): each crop saved as its frame comes, or, with `--best-shot`, each
/// track's best crop kept and saved when the track ends.
public final class CropOutput {
    private var saver: Annotator
    /// Save only each track's best crop, when the track ends, rather than every crop.
    let bestShotsOnly: Bool
    /// Each open track's best crop so far, by track id.
    private var bestShots: [Int: (shot: BestShot, name: String, image: Frame)] = [:]

    public init(saver: Annotator, bestShotsOnly: Bool = false) {
        self.saver = saver
        self.bestShotsOnly = bestShotsOnly
    }

    /// Saves `crops`, of `result`'s faces, each named after its track id once tracking gave one; with
    /// best shots, keeps each tracked face's crop when its quality beats its track's best so far.
    func take(_ crops: FaceCrops, of result: FrameResult, fail: (FaceCamError) -> Void) {
        for (index, (face, image)) in zip(result.faces, crops.images).enumerated() {
            guard let image else { continue }
            if bestShotsOnly {
                guard let id = face.id, let quality = face.quality, quality > bestShots[id]?.shot.quality ?? -1 else { continue }
                let shot = BestShot(id: id, source: result.source, frame: result.frame, time: result.time, quality: quality, path: "")
                bestShots[id] = (shot, crops.fileName(of: face, index: index), image)
                continue
            }
            do {
                try saver.save(image, name: crops.fileName(of: face, index: index))
            } catch {
                fail(error)
            }
        }
    }

    /// Saves the best crop of track `id`, if it had one; returns its record, or nil (when saving
    /// failed, `fail` is told).
    func bestShot(ofTrack id: Int, fail: (FaceCamError) -> Void) -> BestShot? {
        guard var best = bestShots.removeValue(forKey: id) else { return nil }
        do {
            best.shot.path = try saver.save(best.image, name: best.name)
            return best.shot
        } catch {
            fail(error)
            return nil
        }
    }

    /// The tracks with a best crop not yet saved, in order.
    var tracksWithBestShots: [Int] { bestShots.keys.sorted() }
}
