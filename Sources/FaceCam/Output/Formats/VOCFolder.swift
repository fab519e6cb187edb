/// Pascal VOC: `Annotations/ITEM.xml`, the list of items `ImageSets/Main/train.txt` and `labelmap.txt`.
struct VOCFolder: FolderFormat {
    static let traits = FormatTraits(fileExtension: "xml")
    static let indexFiles = ["ImageSets/Main/train.txt", "labelmap.txt"]
    private let context: ExportContext

    init(context: ExportContext) {
        self.context = context
    }

    func item(for result: FrameResult, source: String, frame: String) -> String {
        DatasetFolder.removingExtension(context.imageRoot == nil ? lastComponent(source) : source) + frame
    }

    /// VOC's corners are the box's inside the image, unrounded (VOC's own files hold whole pixels,
    /// from 1); a box cut by the image's edge is `truncated`. The file named is the image's own,
    /// which the labelling tool shows; a video's frames are named as the item.
    func file(for result: FrameResult, item: String) -> (path: String, text: String) {
        let file = context.video ? lastComponent(item) + ".jpg" : lastComponent(context.name(of: result.source))
        var xml = "<annotation>\n  <folder></folder>\n  <filename>\(markupEscaped(file))</filename>\n"
            + "  <source><database>\(markupEscaped(context.model))</database></source>\n"
            + "  <size><width>\(result.previewSize.width)</width><height>\(result.previewSize.height)</height><depth>3</depth></size>\n"
            + "  <segmented>0</segmented>\n"
        for face in result.faces {
            guard let b = face.preview.clipped(to: result.previewSize) else { continue }
            let truncated = b != face.preview ? 1 : 0
            xml += "  <object><name>face</name><pose>\(face.vocPose)</pose><truncated>\(truncated)</truncated><difficult>0</difficult>"
                + "<bndbox><xmin>\(decimal(b.x))</xmin><ymin>\(decimal(b.y))</ymin>"
                + "<xmax>\(decimal(b.x + b.width))</xmax><ymax>\(decimal(b.y + b.height))</ymax></bndbox></object>\n"
        }
        return ("Annotations/\(item).xml", xml + "</annotation>\n")
    }

    /// The list of items, and the label list of Datumaro and CVAT (VOC's own tools know only its twenty classes).
    func index(items: [String], folder: String) -> [(path: String, text: String)] {
        [("ImageSets/Main/train.txt", items.map { $0 + "\n" }.joined()), ("labelmap.txt", "# label:color_rgb:parts:actions\nface:::\n")]
    }
}
