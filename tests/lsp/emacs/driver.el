;;; driver.el --- Emacs + eglot as the client of `recordkit lsp', in batch  -*- lexical-binding: t; -*-

;; emacs --batch -l driver.el, with RK_EMACS_CONFIG (docs/editors.md's eglot
;; configuration, editors/emacs/recordkit-eglot.el), RK_EMACS_FILE (a record
;; file) and RK_EMACS_OUT (where to write what eglot saw, as JSON).
;; The file is opened as a user opens it: markdown-mode's hook runs the
;; configuration's eglot-ensure, eglot starts the server and receives its
;; diagnostics, which flymake shows.

(require 'cl-lib)
(require 'json)
(require 'markdown-mode)

(defvar rk-published nil "The publishDiagnostics params eglot received.")
(defvar rk-result nil)

(defun rk-put (key value) (push (cons key value) rk-result))

(defun rk-wait (predicate seconds)
  "Run the event loop until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (funcall predicate)))

(defun rk-main ()
  (load (getenv "RK_EMACS_CONFIG") nil t)
  (cl-defmethod eglot-handle-notification :before
    (_server (_method (eql textDocument/publishDiagnostics)) &key uri diagnostics &allow-other-keys)
    (push (list uri diagnostics) rk-published))
  (find-file (getenv "RK_EMACS_FILE"))
  (rk-put 'major_mode (symbol-name major-mode))
  ;; eglot-ensure connects from post-command-hook: what the command loop runs
  (run-hooks 'post-command-hook)
  (rk-put 'connected (and (rk-wait (lambda () (eglot-current-server)) 15) t))
  (let ((server (eglot-current-server)))
    (when server
      (rk-put 'server_name (plist-get (eglot--server-info server) :name))
      (rk-put 'hover_provider (and (eglot--server-capable :hoverProvider) t))))
  (rk-put 'diagnostics_received (and (rk-wait (lambda () rk-published) 15) t))
  (rk-wait (lambda () (flymake-diagnostics)) 5)
  (rk-put 'flymake
          (vconcat
           (mapcar (lambda (d)
                     (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
                       (list (cons 'line (line-number-at-pos beg))
                             (cons 'text (buffer-substring-no-properties beg end))
                             (cons 'message (flymake-diagnostic-text d)))))
                   (flymake-diagnostics))))
  (let ((server (eglot-current-server)))
    (when server
      (eglot-shutdown server))))

(condition-case err
    (rk-main)
  (error (rk-put 'error (format "%S" err))))
(with-temp-file (getenv "RK_EMACS_OUT")
  (insert (json-encode rk-result)))
(kill-emacs (if (assq 'error rk-result) 1 0))
