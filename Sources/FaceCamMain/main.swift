// The binary; its commands are FaceCamCLI's.
import FaceCamCLI

facecamMain()
